//! What one call costs inside the executor, with no transport: `ultra.getWorkspaceInfo`
//! and a small `file.read`, run N times in process to the text of their JSON-RPC reply
//! (audit log on, as served).
//!
//! Run: `cargo run --release -p ultra-commands --example exec_cost -- [N] [command]`;
//! `AS_AI=1` calls as an agent, `TEXT=1` takes the data as JSON text (`execute_text`).

use std::time::Instant;

use serde_json::json;
use ultra_protocol::Source;
use ultra_protocol::jsonrpc::{Id, Outgoing, Response};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("a.txt"), "hello\nworld\n").expect("write");
    // SAFETY: single-threaded at this point; the state dir goes into the temp dir.
    unsafe { std::env::set_var("XDG_STATE_HOME", dir.path().join("state")) };
    let exec = ultra_commands::build(dir.path(), Default::default()).expect("build");
    let kind = if std::env::var_os("AS_AI").is_some() {
        ultra_protocol::SourceKind::Ai
    } else {
        ultra_protocol::SourceKind::Ipc
    };
    let source = Source {
        session_id: Some("session-1".into()),
        ..Source::new(kind)
    };
    let only = std::env::args().nth(2);
    // TEXT=1: the data as JSON text (`execute_text`, as the socket and WebSocket run
    // calls), not a `Value` serialised again.
    let text = std::env::var_os("TEXT").is_some_and(|v| !v.is_empty());
    for (name, args) in [
        ("ultra.getWorkspaceInfo", json!({})),
        ("fs.readFile", json!({"path": "a.txt"})),
    ] {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        for round in 0..3 {
            let t = Instant::now();
            for i in 0..n {
                // To the reply's text, as a JSON-RPC transport sends it.
                let id = Id::from(i as i64);
                let line = if text {
                    let a = exec.execute_text(name, args.clone(), source.clone()).await;
                    assert!(a.result.success, "{name}: {:?}", a.result.error);
                    serde_json::to_string(&Outgoing::answer(id, a.result, a.text))
                } else {
                    let (r, after) = exec.execute_then(name, args.clone(), source.clone()).await;
                    assert!(r.success, "{name}: {:?}", r.error);
                    drop(after);
                    serde_json::to_string(&Response::answer(id, Response::outcome(r)))
                };
                std::hint::black_box(line.expect("serialisable"));
            }
            let per = t.elapsed().as_nanos() as f64 / n as f64;
            println!("{name} round {round}: {per:.0} ns per call, to the reply's text");
        }
    }
}
