//! MCP through the real binary: the official Python `mcp` SDK (installed by `.ci/run`)
//! starts `ultra mcp` over stdio, initializes, lists the tools and calls every one of them
//! on a fixture workspace (`tests/mcp/client.py`).

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;

/// A small TypeScript project the client's calls are written against.
fn fixture() -> Ws {
    let ws = Ws::new();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.name", "Ada Agent"],
        &["config", "user.email", "ada@example.com"],
    ] {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(ws.path(""))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }
    ws.write(
        "src/db.ts",
        "export class Db {\n  query(sql: string): string[] {\n    return [];\n  }\n}\n",
    );
    ws.write(
        "src/service.ts",
        "import { Db } from \"./db\";\n\n// TODO: cache lookups\nexport class UserService {\n  constructor(private db: Db) {}\n\n  findById(id: string): string[] {\n    if (id === \"\") {\n      return [];\n    }\n    return this.db.query(`select ${id}`);\n  }\n}\n",
    );
    ws.write("src/app.ts", "const n = 1;\nexport { n };\n");
    ws.write("notes.txt", "alpha\nbeta\n");
    ws.write("old.txt", "stale notes\n");
    ws.write(
        "package.json",
        r#"{"name": "fixture", "version": "1.0.0", "scripts": {"test": "node --version"}}"#,
    );
    ws
}

/// Run the Python client with `args` (after the script), in the environment every test
/// binary gives the server (the client passes it on to the `ultra mcp` it starts); its
/// combined output, once it printed `ok` last.
fn python_client(ws: &Ws, args: &[&std::ffi::OsStr]) -> String {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    sdk_client(ws, "python3", &script, args)
}

/// The TypeScript SDK's client (`tests/mcp/ts/client.mjs`, its packages installed by
/// `npm ci` there) with `args`; its combined output, once it printed `ok` last.
fn typescript_client(ws: &Ws, args: &[&std::ffi::OsStr]) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/ts");
    common::npm_ci(&dir, "node_modules/@modelcontextprotocol/sdk");
    sdk_client(ws, "node", &dir.join("client.mjs"), args)
}

/// Run an SDK's client script with `interpreter`, in the server's environment.
fn sdk_client(
    ws: &Ws,
    interpreter: &str,
    script: &std::path::Path,
    args: &[&std::ffi::OsStr],
) -> String {
    let template = ws.command();
    let mut cmd = std::process::Command::new(interpreter);
    cmd.arg(script).args(args);
    for (k, v) in template.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = common::run_with_deadline(cmd);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .trim_end()
            .ends_with("ok"),
        "{text}"
    );
    text
}

fn run_client(ws: &Ws, extra: &[&str]) -> String {
    let (bin, root) = (ws.command().get_program().to_owned(), ws.path(""));
    let mut args = vec![bin.as_os_str(), root.as_os_str()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    python_client(ws, &args)
}

/// The TypeScript SDK over stdio reads every answer as text, checks each structured
/// answer against its tool's output schema, and sees errors as readable text.
#[test]
fn the_typescript_sdk_reads_answers_over_stdio() {
    let ws = fixture();
    let (bin, root) = (ws.command().get_program().to_owned(), ws.path(""));
    typescript_client(&ws, &[bin.as_os_str(), root.as_os_str()]);
}

#[test]
fn the_python_sdk_calls_every_tool_over_stdio() {
    let ws = fixture();
    run_client(&ws, &[]);
    // The calls did their work: the edit landed, the write waited for a person.
    assert_eq!(ws.read("src/app.ts"), "const n = 2;\nexport { n };\n");
    assert_eq!(ws.read("notes.txt"), "alpha\nBETA\n");
    assert!(!ws.exists("out/new.txt"));
    assert!(ws.exists("old.txt") && !ws.exists("src/util/date.ts"));
    // Attributed to the client by its name from `initialize`.
    let audit = ws.audit_text();
    assert!(audit.contains("\"agentId\":\"mcp\""), "{audit}");
    // Read-only calls are recorded once their answers are out (after stdout takes the
    // next message), and none is lost, the last one included: `get_lines` ran four
    // times, twice fine and twice refused.
    let reads = ws
        .audit()
        .into_iter()
        .filter(|e| e["command"] == "code.getLines" && e["source"]["agentId"] == "mcp")
        .map(|e| e["outcome"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>();
    assert_eq!(reads, ["ok", "ok", "FILE_NOT_FOUND", "INVALID_ARGUMENTS"]);
}

/// With `--auto-apply` the calls that would wait for a person run at once.
#[test]
fn auto_apply_runs_what_would_be_confirmed() {
    let ws = fixture();
    run_client(&ws, &["--auto-apply"]);
    assert_eq!(ws.read("out/new.txt"), "written\n");
    assert_eq!(ws.read("src/util/date.ts"), "export const today = 1;\n");
    assert!(!ws.exists("old.txt"));
    assert_eq!(
        ws.read("src/app.ts"),
        "const n = 2;\nexport { n as total };\n"
    );
    let log = std::process::Command::new("git")
        .args(["log", "--format=%s %an"])
        .current_dir(ws.path(""))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&log.stdout).trim(),
        "docs: notes Ada Agent"
    );
}

/// A profile bounds what a client sees and may call: `read-only` lists only tools that
/// read, and calling one it does not list is a protocol error that runs nothing (raw
/// JSON-RPC lines on the real binary's stdio).
#[test]
fn a_profile_bounds_the_tools_a_client_can_call() {
    let ws = fixture();
    let mut mcp = common::RawMcp::start(&ws, &["--profile", "read-only"]);
    mcp.initialize("raw");
    mcp.send(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = mcp.read();
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(tools.len() >= 10, "{list}");
    for t in tools {
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
    }
    assert!(
        tools
            .iter()
            .all(|t| t["name"] != "write" && t["name"] != "shell")
    );
    mcp.send(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "write", "arguments": {"path": "x.txt", "content": "no"}}}),
    );
    let r = mcp.read();
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool `write`"),
        "{r}"
    );
    let status = mcp.finish();
    assert!(status.success(), "{status}");
    assert!(!ws.exists("x.txt"));
}

/// MCP 2026-07-28 clients send no `initialize`: who they are and what they can do come in
/// each request's `_meta`. A call is attributed to that client in the audit log, and a
/// confirmation is put to its user as an input-required result (the revision forbids
/// requests from server to client); the retry carrying the answer and the echoed state
/// runs the call once.
#[test]
fn stateless_clients_say_who_they_are_in_each_request() {
    let ws = fixture();
    let mut mcp = common::RawMcp::start(&ws, &[]);
    let meta = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "stateless-agent", "version": "2"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    });
    mcp.send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": meta.clone()}}),
    );
    let found = mcp.read();
    assert!(
        found["result"]["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&"2026-07-28".into()),
        "{found}"
    );
    mcp.send(
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_lines", "arguments": {"path": "notes.txt"}, "_meta": meta.clone()}}),
    );
    assert_eq!(mcp.read()["id"], 2);
    let call = serde_json::json!({"name": "edit_lines",
        "arguments": {"path": "src/app.ts", "start": 1, "end": 1, "content": "const n = 7;"},
        "_meta": meta.clone()});
    mcp.send(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call.clone()}),
    );
    let asked = mcp.read();
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let question = &result["inputRequests"]["approve"];
    assert_eq!(question["method"], "elicitation/create", "{asked}");
    assert!(
        question["params"]["message"]
            .as_str()
            .unwrap()
            .contains("+const n = 7;"),
        "{asked}"
    );
    assert_eq!(ws.read("src/app.ts"), "const n = 1;\nexport { n };\n");
    // A retry with a state that is not this call's waiting id is asked again.
    let mut forged = call.clone();
    forged["requestState"] = "defer-000000000000".into();
    forged["inputResponses"] =
        serde_json::json!({"approve": {"action": "accept", "content": {"approve": true}}});
    mcp.send(
        serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": forged}),
    );
    assert_eq!(mcp.read()["result"]["resultType"], "input_required");
    assert_eq!(ws.read("src/app.ts"), "const n = 1;\nexport { n };\n");
    let mut answered = call.clone();
    answered["requestState"] = result["requestState"].clone();
    answered["inputResponses"] =
        serde_json::json!({"approve": {"action": "accept", "content": {"approve": true}}});
    mcp.send(
        serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": answered}),
    );
    let done = mcp.read();
    assert_eq!(done["result"]["isError"], false, "{done}");
    mcp.finish();
    assert_eq!(ws.read("src/app.ts"), "const n = 7;\nexport { n };\n");
    let audit = ws.audit();
    let agents: Vec<_> = audit
        .iter()
        .filter(|e| e["command"] == "code.getLines" || e["command"] == "code.editLines")
        .map(|e| e["source"]["agentId"].clone())
        .collect();
    assert!(!agents.is_empty(), "{audit:?}");
    assert!(agents.iter().all(|a| a == "stateless-agent"), "{audit:?}");
}

const TOKEN: &str = "mcp-token-0123456789abcdef0123456789abcdef";

/// The `/mcp` URL `ultra serve` printed.
fn mcp_url(server: &common::Server) -> String {
    let err = server.wait_stderr("mcp: http://");
    let line = err.lines().find(|l| l.contains("mcp: http://")).unwrap();
    line.split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .to_string()
}

/// A raw HTTP request; the status line.
fn status(addr: &str, request: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut buf = [0u8; 512];
    let n = s.read(&mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// Streamable HTTP at `/mcp` under `ultra serve`: the Python SDK with the bearer token calls
/// every tool; without it, or with a wrong one, or with only a session id, the answer is
/// 401 before anything runs (security.md A6); a foreign `Host` or `Origin` is 403.
#[test]
fn streamable_http_needs_the_bearer_token() {
    let ws = fixture();
    ws.config(serde_json::json!({"port": 0, "token": TOKEN}));
    let server = ws.serve();
    let url = mcp_url(&server);
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();

    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let post = |extra: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    assert!(status(&addr, &post("")).contains("401"));
    assert!(status(&addr, &post("Authorization: Bearer wrong\r\n")).contains("401"));
    assert!(
        status(
            &addr,
            &post("Mcp-Session-Id: c815941f-db7d-4dd7-957c-23ad106be5bd\r\n")
        )
        .contains("401")
    );
    let bearer = format!("Authorization: Bearer {TOKEN}\r\n");
    assert!(
        status(
            &addr,
            &post(&format!("{bearer}Origin: https://evil.example\r\n"))
        )
        .contains("403")
    );
    let foreign = format!(
        "POST /mcp HTTP/1.1\r\nHost: evil.example\r\n{bearer}Content-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    assert!(status(&addr, &foreign).contains("403"));
    assert!(status(&addr, &post(&bearer)).contains("200"));
    // Clients that cannot send a header (MCP Inspector 0.15) use the URL with a key that
    // `ultra serve` printed: not the token, and only from this machine.
    let err = server.wait_stderr("mcp without headers");
    let keyed = err
        .lines()
        .find(|l| l.contains("mcp without headers"))
        .and_then(|l| l.split_whitespace().find(|w| w.starts_with("http://")))
        .unwrap()
        .to_string();
    let key = keyed.split("key=").nth(1).unwrap().to_string();
    assert!(!keyed.contains(TOKEN));
    let post_to = |path: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    assert!(status(&addr, &post_to(&format!("/mcp?key={key}"))).contains("200"));
    assert!(status(&addr, &post_to("/mcp?key=0123456789abcdef")).contains("401"));
    assert!(status(&addr, &post_to(&format!("/mcp?key={TOKEN}"))).contains("401"));

    // Revision 2025-03-26's batches are answered as one JSON array, and ending a session
    // says 204.
    let raw = |method: &str, extra: &str, body: &str| {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let req = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\n{bearer}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes()).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    };
    let init = raw(
        "POST",
        "",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"batcher","version":"1"}}}"#,
    );
    let session = init
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("mcp-session-id:")
                .then(|| l.split_once(':').unwrap().1.trim().to_string())
        })
        .unwrap_or_else(|| panic!("{init}"));
    let with_session = format!("Mcp-Session-Id: {session}\r\n");
    raw(
        "POST",
        &with_session,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let batch = raw(
        "POST",
        &with_session,
        r#"[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"get_lines","arguments":{"path":"notes.txt"}}}]"#,
    );
    assert!(batch.starts_with("HTTP/1.1 200"), "{batch}");
    let body = batch.split("\r\n\r\n").nth(1).unwrap();
    let body = if batch
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        // One chunk: size line, data, terminator.
        body.split("\r\n").nth(1).unwrap()
    } else {
        body
    };
    let answers: Vec<serde_json::Value> =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {batch}"));
    assert_eq!(answers.len(), 2, "{batch}");
    assert_eq!(answers[0]["id"], 2);
    assert!(answers[0]["result"]["tools"].as_array().unwrap().len() > 10);
    assert_eq!(answers[1]["id"], "three");
    assert!(
        answers[1]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("1\talpha"),
        "{batch}"
    );
    let ended = raw("DELETE", &with_session, "");
    assert!(ended.starts_with("HTTP/1.1 204"), "{ended}");

    // The real clients, end to end.
    let http = [
        std::ffi::OsStr::new("--http"),
        std::ffi::OsStr::new(&url),
        std::ffi::OsStr::new(TOKEN),
    ];
    typescript_client(&ws, &http);
    python_client(&ws, &http);
    assert_eq!(ws.read("src/app.ts"), "const n = 2;\nexport { n };\n");
    let audit = ws.audit_text();
    assert!(audit.contains("(http auth)"), "{audit}");
    assert!(!audit.contains(TOKEN));
}

/// The client in one of its modes (`--progress`, `--elicit`) against `ws`.
fn run_mode(ws: &Ws, mode: &str, extra: &[&str]) {
    let (bin, root) = (ws.command().get_program().to_owned(), ws.path(""));
    let mut args = vec![
        std::ffi::OsStr::new(mode),
        bin.as_os_str(),
        root.as_os_str(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    python_client(ws, &args);
}

/// A slow tool call made with a progress token gets progress notifications while it runs.
#[test]
fn slow_calls_report_progress() {
    let ws = fixture();
    ws.config(serde_json::json!({"run": {"allow": [{"program": "sleep", "match": ["sleep 1"]}]}}));
    run_mode(&ws, "--progress", &[]);
}

/// A client that can ask its user (elicitation) gets the confirmation there, with the
/// diff: accepted, the edit runs; declined, CONFIRMATION_DENIED and nothing changes.
#[test]
fn confirmations_go_to_the_clients_user_by_elicitation() {
    let ws = fixture();
    run_mode(&ws, "--elicit", &["accept"]);
    assert_eq!(ws.read("src/app.ts"), "const n = 7;\nexport { n };\n");
    let ws = fixture();
    run_mode(&ws, "--elicit", &["decline"]);
    assert_eq!(ws.read("src/app.ts"), "const n = 1;\nexport { n };\n");
}

/// Clients built on libuv (Node) hand their child a Unix socketpair, not pipes, as stdin and
/// stdout; `ultra mcp` serves over it the same way.
#[test]
fn stdio_over_a_socketpair() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixStream;
    let ws = fixture();
    let (ours, theirs) = UnixStream::pair().unwrap();
    let mut cmd = ws.command();
    cmd.arg("mcp")
        .stdin(std::process::Stdio::from(std::os::fd::OwnedFd::from(
            theirs.try_clone().unwrap(),
        )))
        .stdout(std::process::Stdio::from(std::os::fd::OwnedFd::from(
            theirs,
        )))
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    ours.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let mut w = ours.try_clone().unwrap();
    let mut r = BufReader::new(ours);
    let mut call = |line: &str| -> serde_json::Value {
        writeln!(w, "{line}").unwrap();
        if line.contains("\"id\"") {
            let mut reply = String::new();
            r.read_line(&mut reply).unwrap();
            serde_json::from_str(&reply).unwrap()
        } else {
            serde_json::Value::Null
        }
    };
    let init = call(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"node-like","version":"1"}}}"#,
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "ultra", "{init}");
    call(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let got = call(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_lines","arguments":{"path":"notes.txt","start":2,"end":2}}}"#,
    );
    let text = got["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("beta"), "{got}");
    drop(w);
    drop(r);
    let _ = child.kill();
    let _ = child.wait();
}

/// `tools/call` over stdio takes a direct path once the client has initialized; a call
/// carrying anything more (here an extra `_meta` key) goes through rmcp. The same call
/// must answer the same either way: results, failures, odd arguments, unknown tools,
/// ids of either type.
#[test]
fn direct_tool_calls_answer_as_rmcp_does() {
    use serde_json::json;
    let ws = fixture();
    let mut mcp = common::RawMcp::start(&ws, &[]);
    mcp.initialize("differential");
    let calls = [
        json!({"name": "get_lines", "arguments": {"path": "src/service.ts", "start": 2, "end": 6}}),
        json!({"name": "get_lines", "arguments": {"path": "missing.ts"}}),
        json!({"name": "get_lines", "arguments": {"path": "../outside"}}),
        json!({"name": "get_lines", "arguments": {"path": 7}}),
        json!({"name": "get_lines", "arguments": null}),
        json!({"name": "get_lines"}),
        json!({"name": "find_definition", "arguments": {"symbol": "UserService"}}),
        json!({"name": "grep", "arguments": {"pattern": "TODO"}}),
        json!({"name": "no_such_tool", "arguments": {}}),
        json!({"name": "get_lines", "arguments": "src/app.ts"}),
    ];
    for (n, params) in calls.iter().enumerate() {
        for id in [json!(n), json!(format!("call-{n}"))] {
            let mut routed = params.clone();
            routed["_meta"] = json!({"io.example/trace": "via-rmcp"});
            mcp.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
            let direct = mcp.read();
            mcp.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": routed}));
            let through_rmcp = mcp.read();
            assert_eq!(direct["id"], id, "{direct}");
            assert_eq!(direct, through_rmcp, "{params}");
        }
    }
    assert!(mcp.finish().success());
}

/// Calls answered directly and messages rmcp answers, sent in a random interleaving
/// without waiting: every request gets exactly one reply, each reply is one whole JSON
/// line (rmcp's long tool list included), and the server goes on after a line longer
/// than the 16 MiB a message may have.
#[test]
fn direct_and_rmcp_replies_never_interleave() {
    use serde_json::json;
    let ws = fixture();
    let mut mcp = common::RawMcp::start(&ws, &[]);
    mcp.initialize("interleaved");
    // A line over the limit is dropped whole; the next one is read as usual.
    let huge = format!("{{\"pad\":\"{}\"}}", "x".repeat(16 << 20));
    mcp.send_raw(&huge);
    let mut seed = 0x9E37_79B9_u32;
    let mut kinds = std::collections::HashMap::new();
    for id in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let kind = seed % 4;
        let message = match kind {
            0 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "get_lines", "arguments": {"path": "notes.txt"}}}),
            1 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "get_lines", "arguments": {"path": "notes.txt"},
                    "_meta": {"io.example/trace": id}}}),
            2 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
            _ => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
        };
        kinds.insert(id, kind);
        mcp.send(message);
        if id % 50 == 0 {
            mcp.send(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 999_999}}),
            );
        }
    }
    let mut seen = std::collections::HashSet::new();
    while seen.len() < kinds.len() {
        let reply = mcp.read();
        let id = reply["id"].as_u64().unwrap_or_else(|| panic!("{reply}"));
        assert!(seen.insert(id), "two replies to {id}");
        let result = &reply["result"];
        match kinds[&id] {
            0 | 1 => assert_eq!(
                result["content"][0]["text"]
                    .as_str()
                    .map(|t| t.contains("beta")),
                Some(true),
                "{reply}"
            ),
            2 => assert!(
                result["tools"].as_array().is_some_and(|t| t.len() > 5),
                "{reply}"
            ),
            _ => assert_eq!(result, &json!({}), "{reply}"),
        }
    }
    assert!(mcp.finish().success());
}
