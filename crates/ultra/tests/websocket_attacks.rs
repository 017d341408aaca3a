//! The attacks of security.md §4 that aim at the WebSocket, one test (or a named part of
//! one) per attack, against the real `ultra serve`: A1-A3 and A5 (secrets), O2-O4 (hosts,
//! origins, cross-site requests) and R1-R3 (resources). A4 (planted token files) is a unit
//! test in `ultra-ws` (`auth.rs`) and, for the Unix socket, `socket.rs`; O1 is
//! `websocket.rs`'s `foreign_hosts_and_origins_are_refused_before_the_upgrade`; A6 (MCP over
//! HTTP without a bearer token) is `mcp.rs`'s `streamable_http_needs_the_bearer_token`.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::wsc::*;
use common::{Server, Ws};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

fn addr(url: &str) -> String {
    url.trim_start_matches("ws://").to_string()
}

/// A plain HTTP request on a raw socket; the status line and whatever followed.
fn http(addr: &str, request: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        if out.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The server's peak resident memory, in KiB.
fn peak_rss_kib(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

async fn authenticate_with(s: &mut Stream, params: Value) -> Value {
    send(
        s,
        json!({"jsonrpc": "2.0", "id": 1, "method": "auth.authenticate", "params": params}),
    )
    .await;
    recv(s).await.unwrap()
}

/// A1: a missing, empty, wrong, prefix-only, 10 KB or mistyped token all get the same
/// refusal, the connection closes, and nothing is dispatched.
#[test]
fn a1_every_wrong_secret_gets_the_same_answer() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    let long = "x".repeat(10 * 1024);
    let cases = [
        json!({}),
        json!({"token": ""}),
        json!({"token": "guess"}),
        json!({"token": &TOKEN[..20]}),
        json!({"token": format!("{TOKEN}x")}),
        json!({"token": long}),
        json!({"token": 12345}),
        json!({"token": [TOKEN]}),
    ];
    let mut messages = Vec::new();
    rt().block_on(async {
        for case in cases {
            let (mut s, nonce) = challenged(&url).await;
            let mut params = case.clone();
            params["nonce"] = json!(nonce);
            let r = authenticate_with(&mut s, params).await;
            assert_eq!(r["error"]["code"], -32001, "{case}: {r}");
            assert_eq!(r["error"]["data"]["details"]["authenticated"], false, "{r}");
            messages.push(r["error"]["message"].as_str().unwrap().to_string());
            assert!(
                recv(&mut s).await.is_none(),
                "{case}: closed after a failure"
            );
        }
    });
    assert!(messages.iter().all(|m| m == &messages[0]), "{messages:?}");
    assert!(!messages[0].contains("guess"), "the guess is not echoed");
    let audit = ws.audit();
    assert!(
        audit.iter().all(|e| e["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("auth.") || c.starts_with('('))),
        "nothing but authentication was dispatched: {audit:?}"
    );
    let text = ws.audit_text();
    assert!(!text.contains(TOKEN) && !text.contains("guess"));
}

/// A2: a call sent before authenticating, alone, pipelined ahead of `auth.authenticate`
/// or in a batch, is refused and changes nothing; a replayed nonce is in `websocket.rs`.
#[test]
fn a2_calls_before_authentication_change_nothing() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    let set = json!({"jsonrpc": "2.0", "id": 7, "method": "editor.setContent",
                     "params": {"path": "src/app.ts", "content": "pwned"}});
    let save = json!({"jsonrpc": "2.0", "id": 8, "method": "editor.save",
                      "params": {"path": "src/app.ts"}});
    rt().block_on(async {
        let (mut s, nonce) = challenged(&url).await;
        // Pipelined: both written before any answer is read.
        send(&mut s, set.clone()).await;
        send(&mut s, save.clone()).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 9, "method": "auth.authenticate",
                   "params": {"token": TOKEN, "nonce": nonce}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(7), json!(-32001))
        );
        let r = recv(&mut s).await.unwrap();
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(8), json!(-32001))
        );
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["result"]["authenticated"], true, "{r}");
        // A batch smuggling a call in with the authentication is not a request at all.
        let (mut s, nonce) = challenged(&url).await;
        send(
            &mut s,
            json!([{"jsonrpc": "2.0", "id": 1, "method": "auth.authenticate",
                    "params": {"token": TOKEN, "nonce": nonce}}, set]),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert!(r["error"]["code"].is_number(), "{r}");
        // Still unauthenticated: a call is refused.
        send(&mut s, save).await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32001, "{r}");
    });
    assert_eq!(ws.read("src/app.ts"), "export const a = 1;\n");
    assert!(!ws.audit_text().contains("pwned"));
}

/// A3: many wrong attempts at once. After the first failure a peer's attempts are answered
/// one at a time with growing delays, and once its queue is full the rest are turned away
/// unchecked: a burst does not guess faster than a sequence. Every refusal is audited.
#[test]
fn a3_a_burst_of_wrong_attempts_is_slowed_and_audited() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    const BURST: usize = 1000;
    let (checked, turned_away) = rt().block_on(async {
        let (mut s, nonce) = challenged(&url).await;
        let r = authenticate_with(&mut s, json!({"token": "guess-0", "nonce": nonce})).await;
        assert_eq!(r["error"]["code"], -32001);
        let mut conns = Vec::new();
        for i in 0..BURST {
            let (mut s, nonce) = challenged(&url).await;
            send(
                &mut s,
                json!({"jsonrpc": "2.0", "id": 1, "method": "auth.authenticate",
                       "params": {"token": format!("guess-{i}"), "nonce": nonce}}),
            )
            .await;
            conns.push(s);
        }
        // Whatever is answered within 3 s.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
        let (mut checked, mut turned_away) = (0, 0);
        for s in &mut conns {
            let Ok(Some(Ok(Message::Text(t)))) = tokio::time::timeout_at(deadline, s.next()).await
            else {
                continue;
            };
            let r: Value = serde_json::from_str(&t).unwrap();
            assert_eq!(r["error"]["code"], -32001, "{r}");
            if r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("too many failed attempts")
            {
                assert!(
                    r["error"]["data"]["details"]["retryAfterMs"].is_u64(),
                    "{r}"
                );
                turned_away += 1;
            } else {
                checked += 1;
            }
        }
        (checked, turned_away)
    });
    assert!(checked <= 6, "{checked} guesses checked within 3 s");
    assert!(
        turned_away >= BURST - 20,
        "{turned_away} of {BURST} turned away"
    );
    let refusals = ws
        .audit()
        .iter()
        .filter(|e| e["command"] == "auth.authenticate" && e["outcome"] == "UNAUTHORIZED")
        .count();
    assert!(refusals > BURST - 20, "{refusals} refusals audited");
    drop(server);
}

/// A5: the token is in no log, audit entry, command line, error or terminal environment,
/// here given through `ULTRA_TOKEN`.
#[test]
fn a5_the_token_does_not_leak() {
    let ws = Ws::new();
    ws.config(json!({"port": 0}));
    ws.write("src/app.ts", "export const a = 1;\n");
    let mut cmd = ws.command();
    cmd.env("ULTRA_TOKEN", TOKEN)
        .arg("serve")
        .arg("--socket")
        .arg(ws.base().join("s/ultra.sock"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let server = Server::spawn(cmd, ws.base().join("s/ultra.sock"));
    let url = url(&server);
    let output = rt().block_on(async {
        let mut s = authenticated(&url).await;
        let mut notes = Vec::new();
        let r = call(&mut s, 2, "terminal.create", json!({}), &mut notes).await;
        let id = r["result"]["terminalId"].clone();
        call(
            &mut s,
            3,
            "terminal.sendText",
            json!({"terminalId": id, "text": "echo \"[${ULTRA_TOKEN}]\" \"[$(env | grep -c test-token)]\""}),
            &mut notes,
        )
        .await;
        let r = call(
            &mut s,
            4,
            "terminal.wait",
            json!({"terminalId": id, "until": {"output": "\\[[0-9]+\\]"}, "since": 0, "timeoutMs": 10000}),
            &mut notes,
        )
        .await;
        assert_eq!(r["result"]["matched"], true, "{r}");
        let r = call(&mut s, 5, "terminal.read", json!({"terminalId": id}), &mut notes).await;
        // A failed authentication's error does not carry it either.
        let (mut bad, nonce) = challenged(&url).await;
        let e = authenticate_with(&mut bad, json!({"token": &TOKEN[..30], "nonce": nonce})).await;
        assert!(!e.to_string().contains(&TOKEN[..30]), "{e}");
        r["result"]["data"].as_str().unwrap().to_string()
    });
    assert!(output.contains("[] [0]"), "{output}");
    assert!(!output.contains(TOKEN));
    assert!(
        server
            .wait_stderr("websocket token:")
            .contains("websocket token: from ULTRA_TOKEN")
    );
    assert!(!server.stderr().contains(TOKEN));
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.child.id())).unwrap();
    assert!(!String::from_utf8_lossy(&cmdline).contains(TOKEN));
    assert!(!ws.audit_text().contains(TOKEN));
}

/// O2-O4: a foreign `Host` even with an allowed `Origin`, the `0.0.0.0` host, `Origin:
/// null`, and cross-site requests that are not upgrades (a `text/plain` form POST, a
/// no-cors fetch, a plain GET) are refused and change nothing.
#[test]
fn o2_o4_foreign_hosts_and_cross_site_requests_are_refused() {
    let ws = workspace(json!({"allowedOrigins": ["http://localhost:3000"]}));
    let server = ws.serve();
    let url = url(&server);
    let addr = addr(&url);
    let port = addr.rsplit(':').next().unwrap().to_string();
    let upgrade = |host: &str, origin: &str| {
        format!(
            "GET / HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nConnection: Upgrade\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
    };
    // O2: a rebinding hostname carrying an allowed origin.
    let r = http(
        &addr,
        &upgrade(&format!("evil.example:{port}"), "http://localhost:3000"),
    );
    assert!(r.starts_with("HTTP/1.1 403"), "{r}");
    // O3: the unspecified address as Host; a null Origin.
    let r = http(
        &addr,
        &upgrade(&format!("0.0.0.0:{port}"), "http://localhost:3000"),
    );
    assert!(r.starts_with("HTTP/1.1 403"), "{r}");
    let r = http(&addr, &upgrade(&format!("127.0.0.1:{port}"), "null"));
    assert!(r.starts_with("HTTP/1.1 403"), "{r}");
    // The allowed pair upgrades (the check above is not refusing everything).
    let r = http(
        &addr,
        &upgrade(&format!("127.0.0.1:{port}"), "http://localhost:3000"),
    );
    assert!(r.starts_with("HTTP/1.1 101"), "{r}");
    // O4: a form POST in text/plain carrying JSON-RPC, from a foreign origin and from none.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "editor.setContent",
                      "params": {"path": "src/app.ts", "content": "pwned"}})
    .to_string();
    for origin in ["Origin: https://evil.example\r\n", ""] {
        let r = http(
            &addr,
            &format!(
                "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{origin}\
                 Content-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        );
        assert!(
            r.starts_with("HTTP/1.1 403") || r.starts_with("HTTP/1.1 405"),
            "{r}"
        );
    }
    // A plain GET (what `fetch(..., {mode: "no-cors"})` or an <img> sends) is not served.
    let r = http(
        &addr,
        &format!("GET /?method=editor.setContent HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
    );
    assert!(r.starts_with("HTTP/1.1 426"), "{r}");
    let r = http(
        &addr,
        &format!(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\n\r\n"
        ),
    );
    assert!(r.starts_with("HTTP/1.1 403"), "{r}");
    assert_eq!(ws.read("src/app.ts"), "export const a = 1;\n");
}

/// R1: a frame that announces 100 MB is cut off at the message cap: the connection is
/// closed, the server's memory stays bounded, and other clients are served.
#[test]
fn r1_a_100_mb_frame_is_cut_off_with_memory_bounded() {
    let ws = workspace(json!({"ipc": {"maxLineBytes": 1048576}}));
    let server = ws.serve();
    let url = url(&server);
    let addr = addr(&url);
    rt().block_on(async {
        // Warm up: the baseline includes a served client.
        let mut s = authenticated(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "editor.getContent",
                   "params": {"path": "src/app.ts"}}),
        )
        .await;
        recv(&mut s).await.unwrap();
    });
    let before = peak_rss_kib(&server);
    let mut sock = TcpStream::connect(&addr).unwrap();
    let r = {
        sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        sock.write_all(
            format!(
                "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
                 Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
        let mut head = [0u8; 1024];
        let n = sock.read(&mut head).unwrap();
        String::from_utf8_lossy(&head[..n]).into_owned()
    };
    assert!(r.starts_with("HTTP/1.1 101"), "{r}");
    // A masked text frame announcing 100,000,000 bytes, then as much of it as the server
    // will take.
    let mut frame = vec![0x81u8, 0x80 | 127];
    frame.extend_from_slice(&100_000_000u64.to_be_bytes());
    frame.extend_from_slice(&[1, 2, 3, 4]);
    sock.write_all(&frame).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let mut sent = 0usize;
    while sent < 100_000_000 {
        match sock.write(&chunk) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    assert!(sent < 100_000_000, "the server took all {sent} bytes");
    let after = peak_rss_kib(&server);
    assert!(
        after < before + 32 * 1024,
        "peak RSS grew from {before} KiB to {after} KiB"
    );
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "editor.getContent",
                   "params": {"path": "src/app.ts"}}),
        )
        .await;
        assert_eq!(recv(&mut s).await.unwrap()["id"], 2);
    });
}

/// R2: 100k nested brackets, a batch of 100k requests and 10k requests in flight get a
/// parse error, a size error and rate-limit answers; the server neither overflows its
/// stack nor stops serving.
#[test]
fn r2_deep_nesting_huge_batches_and_floods_are_capped() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        s.send(Message::Text("[".repeat(100_000).into()))
            .await
            .unwrap();
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32700, "{r}");

        let one = json!({"jsonrpc": "2.0", "id": 1, "method": "editor.getContent",
                         "params": {"path": "src/app.ts"}});
        let batch = Value::Array(vec![one; 100_000]);
        send(&mut s, batch).await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["data"]["code"], "TOO_LARGE", "{r}");
        assert_eq!(r["error"]["data"]["details"]["maxBatch"], 1000, "{r}");

        // 10k requests written before any answer is read.
        const N: i64 = 10_000;
        let started = Instant::now();
        for id in 0..N {
            send(
                &mut s,
                json!({"jsonrpc": "2.0", "id": id, "method": "editor.getContent",
                       "params": {"path": "src/app.ts"}}),
            )
            .await;
        }
        let (mut served, mut limited) = (0, 0);
        for _ in 0..N {
            let r = recv(&mut s).await.unwrap();
            if r["error"]["code"] == -32007 {
                limited += 1;
            } else {
                assert_eq!(r["result"]["content"], "export const a = 1;\n", "{r}");
                served += 1;
            }
        }
        // The default bucket holds 100 a second.
        let secs = started.elapsed().as_secs_f64();
        assert!(
            (served as f64) <= 100.0 + secs * 100.0 + 5.0,
            "{served} served in {secs:.1} s"
        );
        assert!(
            limited > 0 && served > 0,
            "{served} served, {limited} limited"
        );
    });
}

/// R3: 1000 sockets that connect and say nothing, and more WebSocket connections than may
/// wait to authenticate, do not keep a real client out; the idle ones are closed.
#[test]
fn r3_idle_sockets_do_not_crowd_out_a_real_client() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    let addr = addr(&url);
    let silent: Vec<TcpStream> = (0..1000)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    rt().block_on(async {
        // More than ultra_ws::MAX_WAITING upgraded but unauthenticated connections.
        let mut waiting = Vec::new();
        for _ in 0..ultra_ws::MAX_WAITING + 44 {
            waiting.push(challenged(&url).await.0);
        }
        // A real client is served at once.
        let t = Instant::now();
        let mut s = authenticated(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "editor.getContent",
                   "params": {"path": "src/app.ts"}}),
        )
        .await;
        assert_eq!(recv(&mut s).await.unwrap()["id"], 1);
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        // The oldest waiting connections were closed to make room.
        let mut closed = 0;
        for w in waiting.iter_mut().take(45) {
            if let Ok(Some(Ok(Message::Close(Some(f))))) =
                tokio::time::timeout(Duration::from_secs(2), w.next()).await
            {
                assert!(f.reason.contains("waiting to authenticate"), "{f:?}");
                closed += 1;
            }
        }
        assert!(closed >= 44, "{closed} evicted");
    });
    // The silent sockets are closed by the server once the deadline passes.
    let start = Instant::now();
    let mut open = 0;
    for mut sock in silent {
        let left = Duration::from_secs(20).saturating_sub(start.elapsed());
        sock.set_read_timeout(Some(left.max(Duration::from_millis(10))))
            .unwrap();
        let mut b = [0u8; 1];
        if let Err(e) = sock.read(&mut b)
            && matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            )
        {
            open += 1;
        }
    }
    assert_eq!(open, 0, "{open} silent sockets still open after 20 s");
}
