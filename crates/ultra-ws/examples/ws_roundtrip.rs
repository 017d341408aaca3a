//! WebSocket round trips (issue 6's benchmark): `editor.getContent` through a real
//! `ultra serve` with 1, 10 and 100 concurrent authenticated clients, next to a bare axum
//! WebSocket echo server (the floor: the same stack with no work), in one run.
//!
//! `cargo build --release -p ultra && cargo run --release -p ultra-ws --example ws_roundtrip`
//! (`ULTRA_BIN` overrides the binary; `CALLS` the calls per client, default 2,000).

use std::time::{Duration, Instant};

use axum::extract::ws::{Message as AxMessage, WebSocketUpgrade};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

const TOKEN: &str = "bench-token-0123456789abcdef0123456789abcdef";

type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

#[tokio::main]
async fn main() {
    // The floor runs as its own process too, so both sides pay the same wake-ups.
    if std::env::args().nth(1).as_deref() == Some("--echo") {
        println!("{}", echo_server().await);
        std::future::pending::<()>().await;
    }
    let calls: usize = std::env::var("CALLS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(2_000);
    let bin = std::env::var("ULTRA_BIN").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/release/ultra").to_string()
    });
    let dir = tempfile::tempdir().expect("tempdir");
    {
        use std::os::unix::fs::PermissionsExt;
        // The socket's directory must be private.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
    }
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    std::fs::write(root.join("src/app.ts"), "export const a = 1;\n".repeat(20)).expect("write");
    std::fs::write(
        root.join("ultra.config.json"),
        // Defaults (the audit log on) but no rate limit, which would throttle the benchmark.
        format!(r#"{{"port": 0, "token": "{TOKEN}", "rateLimit": {{"enabled": false}}}}"#),
    )
    .expect("config");
    let mut child = std::process::Command::new(&bin)
        .arg("--root")
        .arg(&root)
        .arg("serve")
        .arg("--socket")
        .arg(dir.path().join("s.sock"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{bin}: {e} (build it with cargo build --release -p ultra)"));
    let url = {
        use std::io::{BufRead, BufReader};
        let err = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(err).lines();
        let mut seen = String::new();
        loop {
            let Some(Ok(line)) = lines.next() else {
                panic!("ultra serve stopped:\n{seen}");
            };
            if let Some(u) = line.split("websocket: ").nth(1) {
                break u.trim().to_string();
            }
            seen.push_str(&line);
            seen.push('\n');
        }
    };
    let mut echo_child = std::process::Command::new(std::env::current_exe().expect("exe"))
        .arg("--echo")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("echo server");
    let echo = {
        use std::io::{BufRead, BufReader};
        let out = echo_child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(out).read_line(&mut line).expect("echo url");
        line.trim().to_string()
    };
    println!(
        "| clients | echo p50 / p99 | echo calls/s | ultra p50 / p99 | ultra calls/s | p50 vs echo |"
    );
    println!("|---|---|---|---|---|---|");
    for clients in [1usize, 10, 100] {
        let per = (calls / clients).max(20);
        let e = run(&echo, clients, per, false).await;
        let u = run(&url, clients, per, true).await;
        println!(
            "| {clients} | {:.0} / {:.0} µs | {:.0} | {:.0} / {:.0} µs | {:.0} | **{:.2}×** |",
            e.0,
            e.1,
            e.2,
            u.0,
            u.1,
            u.2,
            u.0 / e.0
        );
    }
    for c in [&mut child, &mut echo_child] {
        let _ = c.kill();
        let _ = c.wait();
    }
}

/// A bare axum WebSocket server answering each text message with itself.
async fn echo_server() -> String {
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(|ws: WebSocketUpgrade| async move {
            ws.on_upgrade(|mut s| async move {
                while let Some(Ok(m)) = s.recv().await {
                    if let AxMessage::Text(t) = m
                        && s.send(AxMessage::Text(t)).await.is_err()
                    {
                        break;
                    }
                }
            })
        }),
    );
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = l.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(l, app).await;
    });
    format!("ws://{addr}")
}

/// `clients` connections making `per` sequential calls each: p50, p99 (µs), calls/s.
async fn run(url: &str, clients: usize, per: usize, auth: bool) -> (f64, f64, f64) {
    let mut streams = Vec::new();
    for _ in 0..clients {
        streams.push(connect(url, auth).await);
    }
    let start = Instant::now();
    let tasks: Vec<_> = streams
        .into_iter()
        .map(|mut s| {
            tokio::spawn(async move {
                let mut lat = Vec::with_capacity(per);
                for i in 0..per {
                    let req = format!(
                        r#"{{"jsonrpc":"2.0","id":{i},"method":"editor.getContent","params":{{"path":"src/app.ts"}}}}"#
                    );
                    let t = Instant::now();
                    s.send(Message::Text(req.into())).await.expect("send");
                    loop {
                        match s.next().await {
                            Some(Ok(Message::Text(_))) => break,
                            Some(Ok(_)) => continue,
                            other => panic!("connection ended: {other:?}"),
                        }
                    }
                    lat.push(t.elapsed());
                }
                lat
            })
        })
        .collect();
    let mut all: Vec<Duration> = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("client"));
    }
    let secs = start.elapsed().as_secs_f64();
    all.sort();
    let q = |p: f64| all[((all.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e6;
    (q(0.5), q(0.99), all.len() as f64 / secs)
}

async fn connect(url: &str, auth: bool) -> Stream {
    let (mut s, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("connect");
    if auth {
        let challenge = match s.next().await {
            Some(Ok(Message::Text(t))) => t.to_string(),
            other => panic!("no challenge: {other:?}"),
        };
        let v: serde_json::Value = serde_json::from_str(&challenge).expect("json");
        let nonce = v["params"]["nonce"].as_str().expect("nonce").to_string();
        let req = serde_json::json!({"jsonrpc": "2.0", "id": "a", "method": "auth.authenticate",
                                     "params": {"token": TOKEN, "nonce": nonce}});
        s.send(Message::Text(req.to_string().into()))
            .await
            .expect("send");
        match s.next().await {
            Some(Ok(Message::Text(t))) if t.contains("\"authenticated\":true") => {}
            other => panic!("not authenticated: {other:?}"),
        }
    }
    s
}
