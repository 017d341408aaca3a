//! Language servers through the binary (issue 22): `state.getDiagnostics` on a file pyright
//! serves carries pyright's type errors (with `code`) beside the parser's syntax errors,
//! follows an agent's unsaved edit, says `unavailable` (and why) when no server runs, and
//! `lsp.status` shows what runs; a server killed mid-session is started again.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

const APP: &str = "def f(n: int) -> int:\n    return n\n\nx: int = f(\"s\")\n";

fn with_pyright() -> Ws {
    let ws = Ws::new();
    ws.write("app.py", APP);
    ws.config(json!({
        "lsp": {
            "python": { "command": common::pyright().to_string_lossy(), "args": ["--stdio"] },
            "typescript": { "enabled": false }
        }
    }));
    ws
}

fn codes(d: &Value) -> Vec<String> {
    d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x["code"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn diagnostics_come_from_the_language_server_and_follow_edits() {
    let ws = with_pyright();
    let _server = ws.serve();
    let mut sub = ws.agent("watcher");
    sub.ok("subscribe", json!({"events": ["diagnostics.*"]}));
    let mut c = ws.agent("bot");
    let d = c.ok("state.getDiagnostics", json!({"path": "app.py"}));
    assert_eq!(d["languageServer"]["state"], "ready", "{d}");
    assert_eq!(codes(&d), ["reportArgumentType"], "{d}");
    // The workspace-wide list has it too.
    let all = c.ok("state.getDiagnostics", json!({}));
    assert_eq!(codes(&all), ["reportArgumentType"], "{all}");
    assert_eq!(all["diagnostics"][0]["path"], "app.py", "{all}");
    // Subscribers hear of it.
    let ev = sub.wait_event(|e| {
        e["method"] == "diagnostics.changed" && e["params"]["data"]["path"] == "app.py"
    });
    let data = &ev["params"]["data"];
    assert_eq!(data["language"], "python", "{ev}");
    assert_eq!(data["errors"], 1, "{ev}");
    assert!(data["uri"].as_str().unwrap().ends_with("/app.py"), "{ev}");
    let diag = &d["diagnostics"][0];
    assert_eq!(diag["severity"], "error", "{diag}");
    assert_eq!(diag["source"], "Pyright", "{diag}");
    assert_eq!(
        diag["range"]["start"],
        json!({"line": 3, "character": 11}),
        "{diag}"
    );

    // The server sees the agent's unsaved edit, not the disk.
    c.ok("ultra.openFile", json!({"path": "app.py"}));
    c.ok(
        "ultra.edit",
        json!({"path": "app.py", "range": common::range(3, 11, 3, 14), "text": "1"}),
    );
    let d = c.ok("state.getDiagnostics", json!({"path": "app.py"}));
    assert_eq!(d["languageServer"]["state"], "ready", "{d}");
    assert_eq!(d["diagnostics"], json!([]), "{d}");

    // A syntax error: the parser's diagnostic and the server's, merged in position order;
    // the severity filter applies to both.
    // (The syntax gate keeps an agent from writing it; another process does.)
    ws.write("broken.py", "def broken(:\n    pass\n\ny: int = \"s\"\n");
    let d = c.ok("state.getDiagnostics", json!({"path": "broken.py"}));
    let sources: Vec<&str> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["source"].as_str().unwrap())
        .collect();
    assert!(
        sources.contains(&"tree-sitter") && sources.contains(&"Pyright"),
        "{d}"
    );
    let d = c.ok(
        "state.getDiagnostics",
        json!({"path": "broken.py", "severity": ["warning", "hint"]}),
    );
    assert!(
        d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["severity"] == "warning" || x["severity"] == "hint"),
        "{d}"
    );

    // lsp.status shows the running server.
    let s = c.ok("lsp.status", json!({}));
    let py = s["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["language"] == "python")
        .unwrap()
        .clone();
    assert_eq!(py["state"], "running", "{s}");
    // broken.py at least (app.py's was closed when broken.py appeared on disk).
    assert!(py["openDocuments"].as_u64().unwrap() >= 1, "{s}");
    let ts = s["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["language"] == "typescript")
        .unwrap();
    assert_eq!(ts["state"], "disabled", "{s}");
    // The same from the command line, through the running server.
    let sock = ws.base().join("s/ultra.sock");
    let sock = sock.to_str().unwrap();
    let out = ws.cli(&["lsp", "status", "--socket", sock]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    let line = out
        .stdout()
        .lines()
        .find(|l| l.starts_with("python"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(
        line.contains("running")
            && line.contains(&py["pid"].to_string())
            && line.contains("utf-16"),
        "{}",
        out.stdout()
    );

    // Killed mid-session: the next question starts it again (after its backoff).
    let pid = py["pid"].as_i64().unwrap() as i32;
    // SAFETY: kill(2) on the server's process group, which the test's server started.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    let python = |s: &Value| {
        s["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["language"] == "python")
            .unwrap()
            .clone()
    };
    common::wait_until("the server to be started again and answer", || {
        let d = c.ok("state.getDiagnostics", json!({"path": "app.py"}));
        d["languageServer"]["state"] == "ready"
            && python(&c.ok("lsp.status", json!({})))["restarts"] == 1
    });
    let s = c.ok("lsp.status", json!({}));
    let py = python(&s);
    let d = c.ok("state.getDiagnostics", json!({"path": "app.py"}));
    assert_eq!(d["languageServer"]["state"], "ready", "{d}");
    assert_eq!(
        d["diagnostics"],
        json!([]),
        "the restarted server has the edited text: {d}"
    );
    assert_eq!(py["state"], "running", "{s}");
    assert_eq!(py["restarts"], 1, "{s}");
    assert_ne!(py["pid"].as_i64().unwrap() as i32, pid, "{s}");
}

#[test]
fn no_server_is_unavailable_with_the_reason() {
    let ws = Ws::new();
    ws.write("app.py", APP);
    ws.config(json!({"lsp": {"python": {"command": "/nonexistent/pyright-langserver"}}}));
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let d = c.ok("state.getDiagnostics", json!({"path": "app.py"}));
    assert_eq!(d["languageServer"]["state"], "unavailable", "{d}");
    assert!(
        d["languageServer"]["reason"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/pyright-langserver"),
        "{d}"
    );
    // The syntax side still answers (nothing wrong with this file's syntax).
    assert_eq!(d["diagnostics"], json!([]), "{d}");
    let sock = ws.base().join("s/ultra.sock");
    let sock = sock.to_str().unwrap();
    let out = ws.cli(&["lsp", "status", "--socket", sock]);
    assert!(
        out.stdout().contains("failed") && out.stdout().contains("last error"),
        "{}",
        out.stdout()
    );
    let j: Value = serde_json::from_str(
        &ws.cli(&["lsp", "status", "--json", "--socket", sock])
            .stdout(),
    )
    .unwrap();
    assert_eq!(j["success"], true, "{j}");
}

fn messages(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{}:{}", d["range"]["start"]["line"], d["code"]))
        .collect()
}

#[test]
fn an_agents_edit_says_what_it_broke_and_what_it_fixed() {
    let ws = with_pyright();
    ws.write("lib.py", "def twice(n: int) -> int:\n    return 2 * n\n");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    // The error on line 4 is already there: an edit above it (which moves it down) and
    // one that adds a second error report only the second.
    let e = c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "app.py", "edits": [
            {"startLine": 1, "endLine": 0, "text": "import os\n"},
            {"old": "    return n\n", "new": "    return n\n\nz: str = f(2)\n"}
        ]}]}),
    );
    assert_eq!(e["languageServers"][0]["state"], "ready", "{e}");
    assert_eq!(
        messages(&e["newDiagnostics"]),
        ["4:\"reportAssignmentType\""],
        "{e}"
    );
    assert_eq!(e["fixedDiagnostics"], json!([]), "{e}");
    // Fixing both: each is reported fixed, nothing new.
    let e = c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "app.py", "edits": [
            {"old": "z: str = f(2)", "new": "z: int = f(2)"},
            {"old": "x: int = f(\"s\")", "new": "x: int = f(1)"}
        ]}]}),
    );
    assert_eq!(e["newDiagnostics"], json!([]), "{e}");
    let mut fixed = messages(&e["fixedDiagnostics"]);
    fixed.sort();
    assert_eq!(
        fixed,
        ["4:\"reportAssignmentType\"", "6:\"reportArgumentType\""],
        "{e}"
    );
    // A new file's problems are all new; a file nothing diagnoses gets no report.
    let e = c.ok(
        "fs.writeFile",
        json!({"path": "use.py", "content": "from lib import twice\n\ntwice(\"x\")\n"}),
    );
    assert_eq!(
        messages(&e["newDiagnostics"]),
        ["2:\"reportArgumentType\""],
        "{e}"
    );
    let e = c.ok(
        "fs.writeFile",
        json!({"path": "notes.txt", "content": "x\n"}),
    );
    assert!(e.get("newDiagnostics").is_none(), "{e}");
}

#[test]
fn the_diagnostics_gate_refuses_an_edit_that_adds_a_type_error() {
    let ws = with_pyright();
    ws.write("ok.py", "def f(n: int) -> int:\n    return n\n");
    let mut cfg: Value = serde_json::from_str(&ws.read("ultra.config.json")).unwrap();
    cfg["validators"] = json!([{"id": "types", "builtin": "diagnostics", "timeoutMs": 60000}]);
    ws.config(cfg);
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let e = c.err_code(
        "ultra.applyEdits",
        json!({"files": [{"path": "ok.py", "edits": [{"old": "return n", "new": "return str(n)"}]}], "save": true}),
        "CONTENT_VALIDATION_FAILED",
    );
    let text = e.to_string();
    assert!(
        text.contains("reportReturnType") && text.contains("Not applied"),
        "{e}"
    );
    assert_eq!(
        ws.read("ok.py"),
        "def f(n: int) -> int:\n    return n\n",
        "nothing changed"
    );
    // The server is given back the file's text: its diagnostics are of what is there.
    let d = c.ok("state.getDiagnostics", json!({"path": "ok.py"}));
    assert_eq!(d["diagnostics"], json!([]), "{d}");
    // A clean edit passes; so does one to a file with errors it does not add to.
    c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "ok.py", "edits": [{"old": "return n", "new": "return n + 1"}]}], "save": true}),
    );
    c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "app.py", "edits": [{"startLine": 1, "endLine": 0, "text": "# top\n"}]}], "save": true}),
    );
    assert!(ws.read("app.py").starts_with("# top\n"));
}

#[test]
fn a_file_changed_on_disk_reaches_the_server() {
    let ws = with_pyright();
    ws.write("lib.py", "def twice(n: int) -> int:\n    return 2 * n\n");
    ws.write("use.py", "from lib import twice\n\nx: int = twice(2)\n");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let d = c.ok("state.getDiagnostics", json!({"path": "use.py"}));
    assert_eq!(d["languageServer"]["state"], "ready", "{d}");
    assert_eq!(d["diagnostics"], json!([]), "{d}");
    // Another process (a checkout, an editor) changes what use.py imports.
    ws.write(
        "lib.py",
        "def twice(n: int) -> str:\n    return str(2 * n)\n",
    );
    common::wait_until("the server to judge use.py against the new lib.py", || {
        let d = c.ok("state.getDiagnostics", json!({"path": "use.py"}));
        codes(&d) == ["reportAssignmentType"]
    });
}

#[test]
fn an_edit_of_many_files_shows_the_server_only_the_first_twenty() {
    let ws = with_pyright();
    for i in 0..22 {
        ws.write(&format!("m/f{i:02}.py"), "LIMIT: int = 1\n");
    }
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let r = c.ok(
        "search.findAndReplace",
        json!({"query": "LIMIT: int = 1", "replacement": "LIMIT: int = \"one\""}),
    );
    assert_eq!(r["count"], 22, "{r}");
    let servers = r["languageServers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "{r}");
    assert_eq!(servers[0]["state"], "skipped", "{r}");
    // The twenty it judged: one new type error each.
    let new = r["newDiagnostics"].as_array().unwrap();
    assert_eq!(new.len(), 20, "{r}");
    assert!(
        new.iter().all(|d| d["code"] == "reportAssignmentType"),
        "{r}"
    );
    assert!(r["diagnosticsNote"].is_null(), "{r}");
}
