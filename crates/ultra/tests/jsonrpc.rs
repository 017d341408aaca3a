//! JSON-RPC 2.0 shapes through the real binary, the same requests over the Unix socket and
//! the WebSocket of one `ultra serve`: numeric ids of every JSON spelling come back as the
//! exact text sent, params go by name (positional is -32602, `null` is -32600, absent is
//! `{}`), batches apply the same rules per element; and refusals that no retry fixes say
//! `recoverable: false` on the wire.

#![allow(clippy::unwrap_used)]

mod common;

use common::wsc::*;
use serde_json::{Value, json};

const CONTENT: &str = "export const a = 1;\n";

/// Ids as JSON text: floats, exponents, integers past 64 bits both ways, and the plain
/// ones that always worked.
const IDS: [&str; 9] = [
    "1.0",
    "3.5",
    "1e3",
    "2.50",
    "18446744073709551616",
    "-9223372036854775809",
    "7",
    "\"s-1\"",
    "null",
];

/// One request line and the check of its reply's raw text.
struct Case {
    request: String,
    check: Box<dyn Fn(&str)>,
}

fn get_content(id: &str, params: &str) -> String {
    let params = if params.is_empty() {
        String::new()
    } else {
        format!(r#","params":{params}"#)
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"editor.getContent"{params}}}"#)
}

/// The reply's `id` is the very text sent.
fn echoes(raw: &str, id: &str) {
    assert!(
        raw.contains(&format!(r#""id":{id},"#)),
        "id {id} not echoed as sent: {raw}"
    );
}

fn parsed(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|e| panic!("not JSON ({e}): {raw}"))
}

fn positional(r: &Value) {
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["data"]["code"], "INVALID_ARGUMENTS", "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("object by name"), "{message}");
}

fn null_params(r: &Value) {
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert_eq!(r["error"]["data"]["code"], "INVALID_REQUEST", "{r}");
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // Every id spelling, on a call that succeeds...
    for id in IDS {
        cases.push(Case {
            request: get_content(id, r#"{"path":"src/app.ts"}"#),
            check: Box::new(move |raw| {
                echoes(raw, id);
                assert_eq!(parsed(raw)["result"]["content"], CONTENT, "{raw}");
            }),
        });
    }
    // ... on one that fails in the executor, and on one that is not a valid request.
    cases.push(Case {
        request: r#"{"jsonrpc":"2.0","id":1e3,"method":"no.such.method","params":{}}"#.into(),
        check: Box::new(|raw| {
            echoes(raw, "1e3");
            assert_eq!(parsed(raw)["error"]["code"], -32601, "{raw}");
        }),
    });
    cases.push(Case {
        request: r#"{"jsonrpc":"1.0","id":18446744073709551616,"method":"x"}"#.into(),
        check: Box::new(|raw| {
            echoes(raw, "18446744073709551616");
            assert_eq!(parsed(raw)["error"]["code"], -32600, "{raw}");
        }),
    });
    // Positional params, even none, are Invalid params.
    for params in ["[]", r#"["src/app.ts"]"#] {
        cases.push(Case {
            request: get_content("2.50", params),
            check: Box::new(|raw| {
                echoes(raw, "2.50");
                positional(&parsed(raw));
            }),
        });
    }
    // `params: null` is an Invalid Request.
    cases.push(Case {
        request: get_content("-0.5", "null"),
        check: Box::new(|raw| {
            echoes(raw, "-0.5");
            null_params(&parsed(raw));
        }),
    });
    // Absent params are `{}`: the command's own argument check answers.
    cases.push(Case {
        request: get_content("4", ""),
        check: Box::new(|raw| {
            let r = parsed(raw);
            assert_eq!(r["error"]["data"]["code"], "INVALID_ARGUMENTS", "{raw}");
            assert!(
                !r["error"]["message"].as_str().unwrap().contains("by name"),
                "{raw}"
            );
        }),
    });
    cases.push(Case {
        request: r#"{"jsonrpc":"2.0","id":5,"method":"unsubscribe"}"#.into(),
        check: Box::new(|raw| {
            assert_eq!(parsed(raw)["result"]["subscribed"], json!([]), "{raw}");
        }),
    });
    // A batch: the same rules per element, a notification gets no reply.
    let batch = [
        get_content("1.0", r#"{"path":"src/app.ts"}"#),
        get_content("-9223372036854775809", "[]"),
        get_content("\"n\"", "null"),
        r#"{"jsonrpc":"2.0","method":"editor.getContent","params":{"path":"src/app.ts"}}"#.into(),
        get_content("1e3", ""),
        get_content("18446744073709551616", r#"{"path":"src/app.ts"}"#),
    ];
    cases.push(Case {
        request: format!("[{}]", batch.join(",")),
        check: Box::new(|raw| {
            for id in ["1.0", "-9223372036854775809", "\"n\"", "1e3"] {
                echoes(raw, id);
            }
            echoes(raw, "18446744073709551616");
            let r = parsed(raw);
            let replies = r.as_array().unwrap_or_else(|| panic!("not a batch: {raw}"));
            assert_eq!(replies.len(), 5, "{raw}");
            assert_eq!(replies[0]["result"]["content"], CONTENT, "{raw}");
            positional(&replies[1]);
            null_params(&replies[2]);
            assert_eq!(replies[3]["error"]["data"]["code"], "INVALID_ARGUMENTS");
            assert_eq!(replies[4]["result"]["content"], CONTENT, "{raw}");
        }),
    });
    cases
}

#[test]
fn ids_and_params_over_the_socket() {
    let ws = workspace(json!({}));
    let _server = ws.serve();
    let mut c = ws.connect();
    for case in cases() {
        let raw = c.exchange_raw(&case.request);
        (case.check)(&raw);
    }
}

#[test]
fn ids_and_params_over_the_websocket() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        for case in cases() {
            let raw = exchange_raw(&mut s, &case.request).await;
            (case.check)(&raw);
        }
    });
}

/// Refusals no retry gets past say so: `recoverable: false` on the socket, the WebSocket
/// and the CLI; a missing file stays recoverable.
#[test]
fn refusals_are_not_recoverable_on_the_wire() {
    let ws = workspace(json!({
        "policy": { "commands": { "ultra.renameFile": "deny" } },
        "security": {
            "restrictedPaths": ["secret/**"],
            "restrictedCommands": ["ultra.deleteFile"]
        }
    }));
    ws.write("a.txt", "a\n");
    let server = ws.serve();
    let calls = [
        (
            "ultra.openFile",
            json!({"path": "/etc/passwd"}),
            "PATH_OUTSIDE_WORKSPACE",
            false,
        ),
        (
            "ultra.openFile",
            json!({"path": "../outside.txt"}),
            "PATH_OUTSIDE_WORKSPACE",
            false,
        ),
        (
            "ultra.createFile",
            json!({"path": "secret/x.txt", "content": "x"}),
            "RESTRICTED_PATH",
            false,
        ),
        (
            "ultra.renameFile",
            json!({"path": "a.txt", "newPath": "b.txt"}),
            "POLICY_DENIED",
            false,
        ),
        (
            "ultra.deleteFile",
            json!({"path": "a.txt"}),
            "ACCESS_DENIED",
            false,
        ),
        (
            "ultra.openFile",
            json!({"path": "missing.txt"}),
            "FILE_NOT_FOUND",
            true,
        ),
    ];
    let mut agent = ws.agent("bot");
    for (method, params, code, recoverable) in &calls {
        let e = agent.err_code(method, params.clone(), code);
        assert_eq!(e["data"]["recoverable"], *recoverable, "{method}: {e}");
    }
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        let mut notes = Vec::new();
        for (i, (method, params, code, recoverable)) in calls.iter().enumerate() {
            let r = call(&mut s, i as i64, method, params.clone(), &mut notes).await;
            assert_eq!(r["error"]["data"]["code"], *code, "{method}: {r}");
            assert_eq!(
                r["error"]["data"]["recoverable"], *recoverable,
                "{method}: {r}"
            );
        }
    });
    assert_eq!(ws.read("a.txt"), "a\n");
    let out = ws.cli(&[
        "-c",
        "ultra.openFile",
        "-a",
        r#"{"path":"/etc/passwd"}"#,
        "--json",
    ]);
    assert_eq!(out.code(), 1);
    let e = &out.json()[0]["error"];
    assert_eq!(e["code"], "PATH_OUTSIDE_WORKSPACE", "{e}");
    assert_eq!(e["recoverable"], false, "{e}");
}
