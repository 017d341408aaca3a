//! What agents send is accepted (issue 19), through the real binary: seed 000's
//! `ultra.git.*` and `ultra.moveFile` names, `count` from `ultra.replaceText`, an empty
//! selection with no editor, `ultra -c alias:arg` with a config alias; seed 003's
//! `terminal.list` items, positional `command.execute` args and the diagnostics' `severity`.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use common::{Ws, git};
use serde_json::json;

/// `ultra.git.status`, `ultra.git.stage` (`path`, a list, or nothing: everything) and
/// `ultra.git.commit` reach the git commands, listed with their targets; the target's own
/// argument names are not theirs.
#[test]
fn seed_000_git_names_reach_the_git_commands() {
    let ws = Ws::new();
    ws.config(json!({ "policy": { "commands": { "git.commit": "allow" } } }));
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["config", "user.name", "Ada Agent"]);
    git(&ws, &["config", "user.email", "ada@example.com"]);
    ws.write("src/a.ts", "export const a = 1;\n");
    ws.write("src/b.ts", "export const b = 1;\n");
    let _server = ws.serve();
    let mut c = ws.agent("bot");

    let st = c.ok("ultra.git.status", json!({}));
    assert_eq!(st["branch"], "main", "{st}");
    assert_eq!(
        st["files"]["untracked"],
        json!(["src/a.ts", "src/b.ts", "ultra.config.json"])
    );
    let staged = c.ok("ultra.git.stage", json!({ "path": "src/a.ts" }));
    assert_eq!(staged, json!({ "staged": ["src/a.ts"] }));
    c.err_code(
        "ultra.git.stage",
        json!({ "files": ["src/b.ts"] }),
        "INVALID_ARGUMENTS",
    );
    let staged = c.ok("ultra.git.stage", json!({}));
    assert_eq!(
        staged["staged"],
        json!(["src/a.ts", "src/b.ts", "ultra.config.json"])
    );
    let done = c.ok("ultra.git.commit", json!({ "message": "first" }));
    assert_eq!(done["message"], "first", "{done}");
    assert_eq!(git(&ws, &["log", "--format=%s"]), "first");
    ws.write("src/b.ts", "export const b = 2;\n");
    let staged = c.ok("ultra.git.stage", json!({ "path": ["src/b.ts"] }));
    assert_eq!(staged, json!({ "staged": ["src/b.ts"] }));

    let listed = c.ok("ultra.listCommands", json!({ "query": "ultra.git" }));
    for (id, target) in [
        ("ultra.git.status", "git.status"),
        ("ultra.git.stage", "git.stage"),
        ("ultra.git.commit", "git.commit"),
    ] {
        let info = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id} not listed: {listed}"));
        assert_eq!(info["target"], target);
    }
}

/// `ultra.moveFile` moves like `ultra.renameFile`; `ultra.replaceText` says how many it
/// replaced as `count`; `ultra.getSelection` with nothing open is an empty selection.
#[test]
fn move_replace_count_and_an_empty_selection() {
    let ws = Ws::new();
    ws.write("src/a.ts", "let x = 1;\nx = x + 1;\n");
    let _server = ws.serve();
    let mut c = ws.agent("bot");

    let sel = c.ok("ultra.getSelection", json!({}));
    assert_eq!(
        sel,
        json!({ "text": "", "isEmpty": true, "isReversed": false, "selections": [] })
    );
    // A file that is not there is still an error.
    c.err_code(
        "ultra.getSelection",
        json!({ "path": "nope.ts" }),
        "FILE_NOT_FOUND",
    );

    let moved = c.ok(
        "ultra.moveFile",
        json!({ "path": "src/a.ts", "newPath": "lib/a.ts" }),
    );
    assert_eq!(moved, json!({ "path": "src/a.ts", "newPath": "lib/a.ts" }));
    assert!(!ws.exists("src/a.ts"));
    assert_eq!(ws.read("lib/a.ts"), "let x = 1;\nx = x + 1;\n");

    let r = c.ok(
        "ultra.replaceText",
        json!({ "path": "lib/a.ts", "search": "x", "replace": "y", "all": true }),
    );
    assert_eq!(r["count"], 3, "{r}");
    assert_eq!(r["replaced"], 3, "{r}");
    assert_eq!(r["path"], "lib/a.ts", "{r}");
    let r = c.ok(
        "ultra.replaceText",
        json!({ "path": "lib/a.ts", "search": "y", "replace": "z" }),
    );
    assert_eq!(r["count"], 1, "{r}");
    let sel = c.ok("ultra.getSelection", json!({ "path": "lib/a.ts" }));
    assert_eq!(sel["path"], "lib/a.ts", "{sel}");
}

/// `ultra -c o:src/a.ts` with `{"commands": {"aliases": {"o": "ultra.openFile"}}}` runs
/// `ultra.openFile {path: "src/a.ts"}`, in process and through a server.
#[test]
fn cli_shorthand_with_a_config_alias() {
    let ws = Ws::new();
    ws.config(json!({ "commands": { "aliases": {
        "o": "ultra.openFile", "cat": "ultra.getFileContent", "go": "ultra.goToLine"
    } } }));
    ws.write("src/a.ts", "one\ntwo\n");
    let out = ws.cli(&["-c", "o:src/a.ts", "--json"]);
    out.ok();
    assert_eq!(out.json()[0]["data"]["path"], "src/a.ts");
    let out = ws.cli(&["-c", "cat:src/a.ts", "--json"]);
    out.ok();
    assert_eq!(out.json()[0]["data"]["content"], "one\ntwo\n");

    let _server = ws.serve();
    let out = ws.cli(&[
        "-c",
        "o:src/a.ts",
        "-c",
        "go:2",
        "-c",
        "ultra.getSelection",
        "--json",
    ]);
    out.ok();
    let v = out.json();
    assert_eq!(v[0]["data"]["path"], "src/a.ts", "{v:?}");
    assert_eq!(v[2]["data"]["range"]["start"]["line"], 1, "{v:?}");
}

/// Seed 003: `terminal.list` items carry `{id, name, processId}` beside Ultra's fields;
/// `command.execute` maps positional `args` onto the command's arguments in declared
/// order and refuses what does not fit; `severity` filters diagnostics.
#[test]
fn seed_003_terminals_positional_args_and_severity() {
    let ws = Ws::new();
    ws.write("src/a.ts", "one\ntwo\nthree\n");
    ws.write("bad.py", "def f(:\n    pass\n");
    let _server = ws.serve();
    let mut c = ws.connect();

    let t = c.ok("terminal.create", json!({ "name": "dev" }));
    let id = t["terminalId"].as_str().unwrap().to_string();
    let list = c.ok("terminal.list", json!({}));
    let item = &list["terminals"][0];
    assert_eq!(item["id"], id.as_str(), "{list}");
    assert_eq!(item["terminalId"], id.as_str(), "{list}");
    assert_eq!(item["name"], "dev", "{list}");
    assert!(item["processId"].as_u64().is_some_and(|p| p > 0), "{list}");
    assert_eq!(item["processId"], item["pid"], "{list}");
    c.ok("terminal.dispose", json!({ "terminalId": id }));

    // getFileContent's arguments are path, offset, limit, maxChars, in that order.
    let r = c.ok(
        "command.execute",
        json!({ "command": "ultra.getFileContent", "args": ["src/a.ts", 2, 1] }),
    );
    assert_eq!(r["result"]["content"], "two\n", "{r}");
    let r = c.ok(
        "command.execute",
        json!({ "command": "ultra.getFileContent", "args": ["src/a.ts", null, 1] }),
    );
    assert_eq!(r["result"]["content"], "one\n", "{r}");
    let r = c.ok(
        "command.execute",
        json!({ "command": "ultra.getFileContent", "args": [{ "path": "src/a.ts" }] }),
    );
    assert_eq!(r["result"]["content"], "one\ntwo\nthree\n", "{r}");
    let e = c.err_code(
        "command.execute",
        json!({ "command": "ultra.goToLine", "args": [1, 2, 3, 4, 5, 6, 7] }),
        "INVALID_ARGUMENTS",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("in order, are line"),
        "{e}"
    );
    assert!(e["data"]["details"]["order"].is_array(), "{e}");
    assert!(e["data"]["suggestion"].as_str().is_some(), "{e}");
    // A positional value of the wrong type is the command's own refusal.
    c.err_code(
        "command.execute",
        json!({ "command": "ultra.getFileContent", "args": ["src/a.ts", "two"] }),
        "INVALID_ARGUMENTS",
    );
    c.err_code(
        "command.execute",
        json!({ "command": "ultra.nope", "args": ["x"] }),
        "UNKNOWN_COMMAND",
    );

    for (id, severity, some) in [
        ("state.getDiagnostics", json!("error"), true),
        ("state.getDiagnostics", json!("warning"), false),
        ("ultra.getDiagnostics", json!(["hint", "error"]), true),
        ("ultra.getDiagnostics", json!(["info"]), false),
    ] {
        let d = c.ok(id, json!({ "path": "bad.py", "severity": severity }));
        let got = d["diagnostics"].as_array().unwrap();
        assert_eq!(!got.is_empty(), some, "{id} {severity}: {d}");
        assert!(got.iter().all(|x| x["severity"] == "error"), "{d}");
    }
    let e = c.err_code(
        "state.getDiagnostics",
        json!({ "severity": "fatal" }),
        "INVALID_ARGUMENTS",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("expected error, warning, info or hint"),
        "{e}"
    );
}
