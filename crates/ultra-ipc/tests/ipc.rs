//! End-to-end tests of the socket server and client over real Unix sockets.

// Test fixtures outside `#[test]` functions unwrap too: a failed setup should fail the test.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::{TestServer, note, rpc, start, start_with};
use serde_json::{Value, json};
use ultra_core::config::IpcConfig;
use ultra_core::events::EventBus;
use ultra_ipc::{Caller, Client, ClientError};
use ultra_protocol::ipc::BatchItem;
use ultra_protocol::{ErrorCode, Source, SourceKind};

fn server() -> TestServer {
    start(IpcConfig::default())
}

fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error response: {reply}"))
}

// ---- JSON-RPC -------------------------------------------------------------------------

#[test]
fn jsonrpc_call_returns_the_data_object() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&rpc(1, "test.echo", json!({"text": "hi"})));
    assert_eq!(r["jsonrpc"], "2.0");
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["text"], "hi");
    assert_eq!(
        r["result"]["source"]["type"], "ipc",
        "the transport decides the source"
    );
    assert!(r["result"].get("_warnings").is_none());
    assert!(r.get("error").is_none());

    // Aliases reach the same command; string ids are echoed back.
    let r = c
        .call(&json!({"jsonrpc": "2.0", "id": "x", "method": "echo", "params": {"text": "alias"}}));
    assert_eq!(r["id"], "x");
    assert_eq!(r["result"]["text"], "alias");

    // Warnings ride along under `_warnings`.
    let r = c.call(&rpc(2, "test.echo", json!({"text": "w", "warn": true})));
    assert_eq!(r["result"]["_warnings"][0]["code"], "TEST_WARN");
}

#[test]
fn jsonrpc_failure_carries_the_structured_error() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&rpc(1, "test.fail", json!({})));
    assert_eq!(error_code(&r), -32002);
    assert_eq!(r["error"]["data"]["code"], "FILE_NOT_FOUND");
    assert_eq!(r["error"]["data"]["suggestion"], "list the directory first");
    assert_eq!(r["error"]["data"]["recoverable"], true);
    assert!(r.get("result").is_none());

    let r = c.call(&rpc(2, "test.echo", json!({"text": 5})));
    assert_eq!(error_code(&r), -32602);
    assert_eq!(r["error"]["data"]["code"], "INVALID_ARGUMENTS");
    assert!(
        r["error"]["data"]["details"]["usage"]
            .as_str()
            .unwrap()
            .starts_with("test.echo")
    );
}

#[test]
fn unknown_method_suggests_closest_names() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&rpc(9, "test.ecko", json!({})));
    assert_eq!(r["id"], 9);
    assert_eq!(error_code(&r), -32601);
    assert_eq!(r["error"]["data"]["code"], "UNKNOWN_COMMAND");
    let closest: Vec<&str> = r["error"]["data"]["details"]["closest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(closest.contains(&"test.echo"), "{closest:?}");
}

#[test]
fn notifications_get_no_reply_and_responses_stay_in_order() {
    let s = server();
    let mut c = s.connect();
    c.send(&note("test.echo", json!({"text": "quiet"})));
    // Even a failing or unknown notification stays silent.
    c.send(&note("test.fail", json!({})));
    c.send(&note("no.such.method", json!({})));
    let r = c.call(&rpc(7, "test.echo", json!({"text": "loud"})));
    assert_eq!(r["id"], 7);

    // Pipelined requests in one write: answered in arrival order, even when the first is slow.
    let mut bytes = Vec::new();
    for v in [
        rpc(1, "test.sleep", json!({"ms": 200})),
        rpc(2, "test.echo", json!({"text": "b"})),
        rpc(3, "test.fail", json!({})),
    ] {
        bytes.extend(serde_json::to_vec(&v).unwrap());
        bytes.push(b'\n');
    }
    c.send_raw(&bytes);
    assert_eq!(c.recv()["id"], 1);
    assert_eq!(c.recv()["id"], 2);
    assert_eq!(c.recv()["id"], 3);
}

#[test]
fn jsonrpc_batches() {
    let s = start(IpcConfig {
        max_batch: 3,
        ..IpcConfig::default()
    });
    let mut c = s.connect();

    // Mixed: two calls, one notification, one invalid element.
    let r = c.call(&json!([
        rpc(1, "test.echo", json!({"text": "a"})),
        note("test.echo", json!({"text": "n"})),
        1,
    ]));
    let items = r.as_array().expect("a batch reply is an array");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["id"], 1);
    assert_eq!(items[0]["result"]["text"], "a");
    assert_eq!(items[1]["id"], Value::Null);
    assert_eq!(error_code(&items[1]), -32600);

    let r = c.call(&json!([
        rpc(4, "test.fail", json!({})),
        rpc(5, "test.echo", json!({"text": "b"}))
    ]));
    assert_eq!(error_code(&r[0]), -32002);
    assert_eq!(r[1]["result"]["text"], "b");

    // All notifications: no reply at all.
    c.send(&json!([
        note("test.echo", json!({"text": "x"})),
        note("test.echo", json!({"text": "y"}))
    ]));
    let r = c.call(&rpc(6, "test.echo", json!({"text": "after"})));
    assert_eq!(r["id"], 6);

    // Empty batch: one Invalid Request object, not an array.
    let r = c.call(&json!([]));
    assert!(r.is_object());
    assert_eq!(error_code(&r), -32600);

    // Over the cap: one error, nothing runs.
    let r = c.call(&json!([
        rpc(1, "test.echo", json!({"text": "1"})),
        rpc(2, "test.echo", json!({"text": "2"})),
        rpc(3, "test.echo", json!({"text": "3"})),
        rpc(4, "test.echo", json!({"text": "4"})),
    ]));
    assert!(r.is_object());
    assert_eq!(error_code(&r), ErrorCode::TooLarge.rpc_code());
    assert_eq!(r["error"]["data"]["code"], "TOO_LARGE");

    // Invalid elements each get their own error.
    let r = c.call(&json!([1, 2]));
    assert_eq!(r.as_array().unwrap().len(), 2);
    assert_eq!(error_code(&r[0]), -32600);
    assert_eq!(error_code(&r[1]), -32600);
}

#[test]
fn malformed_input_keeps_the_connection_usable() {
    let s = server();
    let mut c = s.connect();

    c.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 1,\n");
    let r = c.recv();
    assert_eq!(error_code(&r), -32700);
    assert_eq!(r["id"], Value::Null);
    assert_eq!(r["error"]["data"]["code"], "PARSE_ERROR");

    // Invalid UTF-8 is a parse error too, not a dead connection.
    c.send_raw(b"\xff\xfe\xfd\n");
    assert_eq!(error_code(&c.recv()), -32700);

    // Nesting beyond serde_json's recursion limit is refused, not a stack overflow.
    let deep = format!("{}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    c.send_raw(deep.as_bytes());
    assert_eq!(error_code(&c.recv()), -32700);

    // Blank lines are ignored; CRLF line ends are accepted.
    c.send_raw(b"\n   \n\r\n");
    let mut line = serde_json::to_vec(&rpc(2, "test.echo", json!({"text": "still here"}))).unwrap();
    line.extend(b"\r\n");
    c.send_raw(&line);
    let r = c.recv();
    assert_eq!(r["id"], 2);
    assert_eq!(r["result"]["text"], "still here");
}

#[test]
fn oversized_line_gets_one_error_and_the_connection_closes() {
    let s = start(IpcConfig {
        max_line_bytes: 1024,
        ..IpcConfig::default()
    });
    let mut c = s.connect();
    // Exactly at the limit is fine.
    let base = serde_json::to_vec(&rpc(1, "test.echo", json!({"text": ""})))
        .unwrap()
        .len();
    let fits = rpc(1, "test.echo", json!({"text": "a".repeat(1024 - base)}));
    assert_eq!(serde_json::to_vec(&fits).unwrap().len(), 1024);
    assert_eq!(c.call(&fits)["id"], 1);

    let big = rpc(2, "test.echo", json!({"text": "x".repeat(4000)}));
    let r = c.call(&big);
    assert_eq!(error_code(&r), ErrorCode::TooLarge.rpc_code());
    assert_eq!(r["error"]["data"]["code"], "TOO_LARGE");
    c.expect_closed();

    // The server itself is fine.
    let mut c2 = s.connect();
    assert_eq!(
        c2.call(&rpc(3, "test.echo", json!({"text": "ok"})))["id"],
        3
    );
}

#[test]
fn invalid_request_shapes() {
    let s = server();
    let mut c = s.connect();
    for (req, id) in [
        (json!(42), Value::Null),
        (json!("ultra.listCommands"), Value::Null),
        (json!(null), Value::Null),
        (json!({"foo": 1}), Value::Null),
        (json!({"method": "test.echo", "id": 4}), json!(4)),
        (
            json!({"jsonrpc": "1.0", "method": "test.echo", "id": 1}),
            json!(1),
        ),
        (json!({"jsonrpc": "2.0", "id": 3}), json!(3)),
        (json!({"jsonrpc": "2.0", "method": 5, "id": 5}), json!(5)),
        (
            json!({"jsonrpc": "2.0", "method": "test.echo", "params": null, "id": 2}),
            json!(2),
        ),
        (
            json!({"jsonrpc": "2.0", "method": "test.echo", "params": 7, "id": 6}),
            json!(6),
        ),
        (
            json!({"jsonrpc": "2.0", "method": "test.echo", "id": {"obj": 1}}),
            Value::Null,
        ),
    ] {
        let r = c.call(&req);
        assert_eq!(error_code(&r), -32600, "for {req}: {r}");
        assert_eq!(r["id"], id, "for {req}");
        assert_eq!(r["error"]["data"]["code"], "INVALID_REQUEST");
    }
    // Positional params (an array, even `[]`) are Invalid params: params go by name.
    for params in [json!(["positional"]), json!([])] {
        let req = json!({"jsonrpc": "2.0", "method": "test.echo", "params": params, "id": 7});
        let r = c.call(&req);
        assert_eq!(error_code(&r), -32602, "for {req}: {r}");
        assert_eq!(r["id"], 7);
        assert_eq!(r["error"]["data"]["code"], "INVALID_ARGUMENTS");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("object by name"),
            "{r}"
        );
    }
    assert_eq!(c.call(&rpc(8, "test.echo", json!({"text": "ok"})))["id"], 8);
}

#[test]
fn session_identify_sets_the_source_for_later_calls() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&rpc(
        1,
        "session.identify",
        json!({"source": "ai", "agentId": "claude", "sessionId": "s1"}),
    ));
    assert_eq!(
        r["result"]["source"],
        json!({"type": "ai", "agentId": "claude", "sessionId": "s1"})
    );
    let r = c.call(&rpc(2, "test.echo", json!({"text": "t"})));
    assert_eq!(
        r["result"]["source"],
        json!({"type": "ai", "agentId": "claude", "sessionId": "s1"})
    );

    // An agent id alone means an agent.
    let r = c.call(&rpc(3, "session.identify", json!({"agentId": "bot"})));
    assert_eq!(r["result"]["source"]["type"], "ai");
    let r = c.call(&rpc(4, "session.identify", json!({"source": "cli"})));
    assert_eq!(r["result"]["source"], json!({"type": "cli"}));

    for kind in ["human", "internal"] {
        let r = c.call(&rpc(5, "session.identify", json!({"source": kind})));
        assert_eq!(error_code(&r), -32001, "{kind}");
        assert_eq!(r["error"]["data"]["code"], "SOURCE_NOT_ALLOWED");
    }
    // The refused claims changed nothing.
    let r = c.call(&rpc(6, "test.echo", json!({"text": "t"})));
    assert_eq!(r["result"]["source"]["type"], "cli");

    let r = c.call(&rpc(7, "session.identify", json!({"source": "robot"})));
    assert_eq!(error_code(&r), -32602);

    // Identity is per connection.
    let mut other = s.connect();
    let r = other.call(&rpc(1, "test.echo", json!({"text": "t"})));
    assert_eq!(r["result"]["source"], json!({"type": "ipc"}));
}

#[test]
fn api_info_lists_every_command() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&rpc(1, "api.info", json!({})));
    assert_eq!(r["result"]["apiLevel"], ultra_protocol::API_LEVEL);
    let ids: Vec<&str> = r["result"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["test.echo", "test.fail", "test.hidden", "test.sleep"]);
    assert_eq!(r["result"]["commands"][0]["aliases"], json!(["echo"]));
}

#[test]
fn jsonrpc_subscriptions_push_notifications() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&rpc(
        1,
        "subscribe",
        json!({"events": ["test.ping", "command.*"]}),
    ));
    assert_eq!(r["result"]["subscribed"], json!(["command.*", "test.ping"]));

    let src = Source {
        kind: SourceKind::Ai,
        agent_id: Some("a1".into()),
        session_id: None,
        extension_id: None,
        position_encoding: None,
    };
    s.exec.events().emit("other.thing", json!({}), None);
    s.exec
        .events()
        .emit("test.ping", json!({"n": 1}), Some(&src));
    let ev = c.recv();
    assert_eq!(
        ev,
        json!({"jsonrpc": "2.0", "method": "test.ping", "params": {"event": "test.ping", "data": {"n": 1}, "source": {"type": "ai", "agentId": "a1"}}})
    );

    // A command run on another connection shows up as command.executed.
    let mut other = s.connect();
    other.call(&rpc(1, "test.echo", json!({"text": "x"})));
    let ev = c.recv();
    assert_eq!(ev["method"], "command.executed");
    assert_eq!(ev["params"]["data"]["command"], "test.echo");
    assert!(ev.get("id").is_none());

    let r = c.call(&rpc(2, "unsubscribe", json!({"events": ["command.*"]})));
    assert_eq!(
        r["result"],
        json!({"unsubscribed": ["command.*"], "subscribed": ["test.ping"]})
    );
    let r = c.call(&rpc(3, "unsubscribe", json!({})));
    assert_eq!(
        r["result"],
        json!({"unsubscribed": ["test.ping"], "subscribed": []})
    );
    s.exec.events().emit("test.ping", json!({"n": 2}), None);
    assert!(c.silent_for(200));

    for bad in [
        json!({}),
        json!({"events": []}),
        json!({"events": "test.*"}),
        json!({"events": [1]}),
        json!({"events": [""]}),
    ] {
        let r = c.call(&rpc(4, "subscribe", bad.clone()));
        assert_eq!(error_code(&r), -32602, "{bad}");
    }
}

/// The WebSocket's method names are the same session methods here.
#[test]
fn the_websockets_subscription_names_are_aliases() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&rpc(1, "events.subscribe", json!({"events": ["test.*"]})));
    assert_eq!(r["result"]["subscribed"], json!(["test.*"]));
    s.exec.events().emit("test.ping", json!({"n": 1}), None);
    let ev = c.recv();
    assert_eq!(ev["method"], "test.ping");
    let r = c.call(&rpc(2, "events.unsubscribe", json!({"events": ["test.*"]})));
    assert_eq!(
        r["result"],
        json!({"unsubscribed": ["test.*"], "subscribed": []})
    );
    s.exec.events().emit("test.ping", json!({"n": 2}), None);
    assert!(c.silent_for(200));
}

#[test]
fn a_lagging_subscriber_is_told_how_many_events_it_missed() {
    let s = start_with(IpcConfig::default(), EventBus::new(4));
    let mut c = s.connect();
    assert!(c.call(&rpc(1, "subscribe", json!({"events": ["*"]})))["result"].is_object());
    // Far more than the bus capacity, the writer queue and the socket buffer together: the
    // forwarder must fall behind while we are not reading.
    for i in 0..20_000 {
        s.exec
            .events()
            .emit("test.flood", json!({"i": i, "pad": "x".repeat(64)}), None);
    }
    for _ in 0..=20_000 {
        let v = c.recv();
        if v["method"] == "events.lagged" {
            assert!(v["params"]["missed"].as_u64().unwrap() > 0);
            return;
        }
    }
    panic!("no events.lagged notification");
}

// ---- Seed-000 envelope ----------------------------------------------------------------

#[test]
fn envelope_execute() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&json!({"id": "1", "type": "execute", "command": "test.echo", "args": {"text": "hi", "warn": true}}));
    assert_eq!(r["id"], "1");
    assert_eq!(r["success"], true);
    assert_eq!(r["result"]["success"], true);
    assert_eq!(r["result"]["data"]["text"], "hi");
    assert_eq!(r["result"]["data"]["source"]["type"], "ipc");
    assert_eq!(r["result"]["warnings"][0]["code"], "TEST_WARN");

    // A failing command is a successful request with a failed result (seed 000).
    let r = c.call(&json!({"id": 2, "type": "execute", "command": "test.fail"}));
    assert_eq!(r["id"], 2);
    assert_eq!(r["success"], true);
    assert_eq!(r["result"]["success"], false);
    assert_eq!(r["result"]["error"]["code"], "FILE_NOT_FOUND");

    let r = c.call(&json!({"id": 3, "type": "execute"}));
    assert_eq!(r["success"], false);
    assert_eq!(r["error"]["code"], "MISSING_COMMAND");

    let r = c.call(&json!({"id": 4, "type": "execute", "command": "test.ecko"}));
    assert_eq!(r["result"]["error"]["code"], "UNKNOWN_COMMAND");

    // Per-request identity: agentId alone means `ai`; human/internal are refused.
    let r = c.call(&json!({"id": 5, "type": "execute", "command": "test.echo", "args": {"text": "a"}, "agentId": "claude", "sessionId": "abc"}));
    assert_eq!(
        r["result"]["data"]["source"],
        json!({"type": "ai", "agentId": "claude", "sessionId": "abc"})
    );
    let r = c.call(&json!({"id": 6, "type": "execute", "command": "test.echo", "args": {"text": "a"}, "source": "cli"}));
    assert_eq!(r["result"]["data"]["source"], json!({"type": "cli"}));
    for kind in ["human", "internal"] {
        let r = c.call(&json!({"id": 7, "type": "execute", "command": "test.echo", "args": {"text": "a"}, "source": kind}));
        assert_eq!(r["id"], 7);
        assert_eq!(r["success"], false);
        assert_eq!(r["error"]["code"], "SOURCE_NOT_ALLOWED");
    }
    let r = c.call(&json!({"id": 8, "type": "execute", "command": "test.echo", "source": "robot"}));
    assert_eq!(r["id"], 8);
    assert_eq!(r["error"]["code"], "INVALID_REQUEST");

    let r = c.call(&json!({"id": 9, "type": "teleport"}));
    assert_eq!(r["success"], false);
    assert_eq!(r["error"]["code"], "UNKNOWN_REQUEST");
    let r = c.call(&json!({"id": 10, "type": 5}));
    assert_eq!(r["error"]["code"], "INVALID_REQUEST");
}

#[test]
fn envelope_batch_and_query() {
    let s = start(IpcConfig {
        max_batch: 2,
        ..IpcConfig::default()
    });
    let mut c = s.connect();
    let r = c.call(&json!({"id": "b", "type": "batch", "commands": [
        {"command": "test.echo", "args": {"text": "1"}},
        {"command": "test.fail"},
    ]}));
    assert_eq!(r["success"], true);
    let results = r["result"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["data"]["text"], "1");
    assert_eq!(results[1]["error"]["code"], "FILE_NOT_FOUND");

    let r = c.call(&json!({"id": "e", "type": "batch", "commands": []}));
    assert_eq!(r["error"]["code"], "MISSING_COMMANDS");
    let r = c.call(&json!({"id": "e", "type": "batch"}));
    assert_eq!(r["error"]["code"], "MISSING_COMMANDS");
    let r = c.call(&json!({"id": "big", "type": "batch", "commands": [{"command": "a"}, {"command": "b"}, {"command": "c"}]}));
    assert_eq!(r["error"]["code"], "TOO_LARGE");

    let r = c.call(&json!({"id": "q", "type": "query"}));
    assert_eq!(r["success"], true);
    assert_eq!(r["result"]["success"], true);
    let list = r["result"]["data"].as_array().unwrap();
    let ids: Vec<&str> = list.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["test.echo", "test.fail", "test.sleep"],
        "hidden commands are not listed"
    );
    let mut keys: Vec<&String> = list[0].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["args", "category", "description", "id", "title"]);
    assert_eq!(list[0]["args"]["type"], "object");
}

#[test]
fn envelope_subscribe_pushes_events() {
    let s = server();
    let mut c = s.connect();
    let r = c.call(&json!({"id": 1, "type": "subscribe", "events": ["test.*"]}));
    assert_eq!(r["success"], true);
    assert_eq!(r["result"]["data"]["subscribed"], json!(["test.*"]));

    s.exec.events().emit("other.x", json!({"no": 1}), None);
    s.exec.events().emit("test.ping", json!({"n": 1}), None);
    assert_eq!(
        c.recv(),
        json!({"type": "event", "event": "test.ping", "data": {"n": 1}})
    );

    let r = c.call(&json!({"id": 2, "type": "unsubscribe"}));
    assert_eq!(r["result"]["data"]["unsubscribed"], json!(["test.*"]));
    s.exec.events().emit("test.ping", json!({"n": 2}), None);
    let r = c.call(&json!({"id": 3, "type": "query"}));
    assert_eq!(r["id"], 3, "no event after unsubscribe");

    let r = c.call(&json!({"id": 4, "type": "subscribe"}));
    assert_eq!(r["error"]["code"], "MISSING_EVENTS");
}

// ---- Connections ----------------------------------------------------------------------

#[test]
fn connections_run_concurrently() {
    let s = server();
    let mut slow = s.connect();
    slow.send(&rpc(1, "test.sleep", json!({"ms": 1500})));
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let mut fast = s.connect();
    assert_eq!(
        fast.call(&rpc(2, "test.echo", json!({"text": "f"})))["id"],
        2
    );
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "a slow connection held up another"
    );
    assert_eq!(slow.recv()["id"], 1);
}

#[test]
fn connections_over_the_cap_are_refused_with_an_error() {
    let s = start(IpcConfig {
        max_connections: 1,
        ..IpcConfig::default()
    });
    let mut first = s.connect();
    assert_eq!(
        first.call(&rpc(1, "test.echo", json!({"text": "a"})))["id"],
        1
    );

    let mut second = s.connect();
    let r = second.recv();
    assert_eq!(error_code(&r), ErrorCode::RateLimited.rpc_code());
    assert_eq!(r["error"]["data"]["code"], "RATE_LIMITED");
    second.expect_closed();

    assert_eq!(
        first.call(&rpc(2, "test.echo", json!({"text": "b"})))["id"],
        2
    );
    drop(first);
    // The slot is freed once the server notices the close.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        // A refused connection may be closed before our request is written; that is just
        // another "not yet".
        let mut stream = std::os::unix::net::UnixStream::connect(&s.path).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut line = serde_json::to_vec(&rpc(3, "test.echo", json!({"text": "c"}))).unwrap();
        line.push(b'\n');
        let _ = stream.write_all(&line);
        let mut reply = String::new();
        let _ = BufReader::new(&stream).read_line(&mut reply);
        if serde_json::from_str::<Value>(&reply).is_ok_and(|r| r["id"] == 3) {
            break;
        }
        assert!(Instant::now() < deadline, "slot never freed: {reply}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Set in a child process to make [`peer_helper`] connect to this socket.
const PEER_HELPER_ENV: &str = "ULTRA_IPC_TEST_PEER_SOCKET";

/// A no-op unless [`PEER_HELPER_ENV`] is set: then it is the client half of
/// `a_peer_with_another_uid_is_dropped`, run in a child process under another uid.
#[test]
fn peer_helper() {
    let Some(path) = std::env::var_os(PEER_HELPER_ENV) else {
        return;
    };
    let mut stream = std::os::unix::net::UnixStream::connect(path).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut line = serde_json::to_vec(&rpc(1, "test.echo", json!({"text": "intruder"}))).unwrap();
    line.push(b'\n');
    let _ = stream.write_all(&line);
    // Half-close so that the server, having answered, sees EOF and closes its end.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut reply = String::new();
    let read = std::io::Read::read_to_string(&mut stream, &mut reply);
    println!("PEER-RESULT read_ok={} reply={reply:?}", read.is_ok());
}

#[test]
fn a_peer_with_another_uid_is_dropped() {
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        return; // only root can run the client half as another user
    }
    use std::os::unix::process::CommandExt;
    let s = server();
    // Open the directories and the socket to everyone, so that only the SO_PEERCRED check
    // stands between another user and the server.
    for (p, mode) in [
        (s.dir.path(), 0o711),
        (s.path.parent().unwrap(), 0o711),
        (s.path.as_path(), 0o666),
    ] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let run_helper = |uid: u32| {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "peer_helper", "--nocapture", "--test-threads=1"])
            .env(PEER_HELPER_ENV, &s.path)
            .uid(uid)
            .gid(uid)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "helper failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // libtest prints `test peer_helper ... ` on the same line first.
        let line = stdout
            .lines()
            .find_map(|l| l.find("PEER-RESULT").map(|i| l[i..].to_string()));
        line.unwrap_or_else(|| panic!("helper printed no result: {stdout}"))
    };
    // Control: the same helper as our own uid gets an answer.
    let ours = run_helper(0);
    assert!(ours.contains("intruder"), "{ours}");
    // Another uid is dropped without a single byte.
    let theirs = run_helper(65534);
    assert!(
        theirs.ends_with("reply=\"\""),
        "another uid got a reply: {theirs}"
    );
}

// ---- Client ---------------------------------------------------------------------------

#[test]
fn client_calls_and_executes() {
    let s = server();
    let mut client = Client::connect(&s.path).unwrap();
    client.set_timeout(Some(Duration::from_secs(10))).unwrap();

    let v = client.call("test.echo", json!({"text": "rpc"})).unwrap();
    assert_eq!(v["text"], "rpc");

    let err = client.call("test.fail", json!({})).unwrap_err();
    assert!(
        matches!(err, ClientError::Rpc(ref o) if o.code == -32002),
        "{err}"
    );
    let ce = err.command_error();
    assert_eq!(ce.code, ErrorCode::FileNotFound);
    assert_eq!(ce.suggestion.as_deref(), Some("list the directory first"));

    let cli = Caller {
        source: Some(SourceKind::Cli),
        agent_id: None,
        session_id: None,
    };
    let r = client
        .execute("test.echo", json!({"text": "env", "warn": true}), &cli)
        .unwrap();
    assert!(r.success);
    assert_eq!(r.data.as_ref().unwrap()["source"]["type"], "cli");
    assert_eq!(r.warnings[0].code, "TEST_WARN");

    let agent = Caller {
        source: None,
        agent_id: Some("claude".into()),
        session_id: Some("s".into()),
    };
    let r = client
        .execute("test.echo", json!({"text": "a"}), &agent)
        .unwrap();
    assert_eq!(
        r.data.unwrap()["source"],
        json!({"type": "ai", "agentId": "claude", "sessionId": "s"})
    );

    let r = client
        .execute("test.fail", json!({}), &Caller::default())
        .unwrap();
    assert!(!r.success);
    assert_eq!(r.error.unwrap().code, ErrorCode::FileNotFound);

    let human = Caller {
        source: Some(SourceKind::Human),
        ..Caller::default()
    };
    let err = client
        .execute("test.echo", json!({"text": "a"}), &human)
        .unwrap_err();
    assert!(
        matches!(err, ClientError::Rejected { ref code, .. } if code == "SOURCE_NOT_ALLOWED"),
        "{err}"
    );
    assert_eq!(err.command_error().code, ErrorCode::SourceNotAllowed);

    let items = [
        BatchItem {
            command: "test.echo".into(),
            args: Some(json!({"text": "1"})),
        },
        BatchItem {
            command: "test.fail".into(),
            args: None,
        },
    ];
    let rs = client.batch(&items, &Caller::default()).unwrap();
    assert_eq!(rs.len(), 2);
    assert!(rs[0].success && !rs[1].success);

    let q = client.query().unwrap();
    assert_eq!(q.data.unwrap().as_array().unwrap().len(), 3);

    let src = client
        .identify(&Caller {
            source: Some(SourceKind::Extension),
            agent_id: None,
            session_id: None,
        })
        .unwrap();
    assert_eq!(src.kind, SourceKind::Extension);
    assert_eq!(
        client.call("test.echo", json!({"text": "x"})).unwrap()["source"]["type"],
        "extension"
    );

    client.notify("test.echo", json!({"text": "n"})).unwrap();
    assert_eq!(
        client.call("test.echo", json!({"text": "after"})).unwrap()["text"],
        "after"
    );
}

#[test]
fn client_receives_events() {
    let s = server();
    let mut client = Client::connect(&s.path).unwrap();
    client.set_timeout(Some(Duration::from_secs(10))).unwrap();
    assert_eq!(client.subscribe(&["test.*"]).unwrap(), ["test.*"]);
    s.exec.events().emit("test.one", json!({"n": 1}), None);
    s.exec.events().emit("test.two", json!({"n": 2}), None);
    // An event that arrives while waiting for a reply is queued, not lost.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        client.call("test.echo", json!({"text": "x"})).unwrap()["text"],
        "x"
    );
    let one = client.next_event().unwrap();
    assert_eq!(
        (one.event.as_str(), one.data["n"].as_i64()),
        ("test.one", Some(1))
    );
    let two = client.next_event().unwrap();
    assert_eq!(two.event, "test.two");
}

#[test]
fn client_reports_a_missing_server() {
    let tmp = tempfile::tempdir().unwrap();
    let err = Client::connect(&tmp.path().join("nobody.sock")).unwrap_err();
    assert!(err.is_not_running(), "{err}");
    assert!(err.to_string().contains("nobody.sock"));

    // A stale socket file with no listener is "not running" as well.
    let path = tmp.path().join("stale.sock");
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(Client::connect(&path).unwrap_err().is_not_running());
}
