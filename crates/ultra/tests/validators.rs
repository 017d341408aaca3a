//! Validators configured in `ultra.config.json`: the built-in `patterns` validator blocks
//! agent edits that introduce a forbidden pattern (with feedback an agent can act on) and
//! file operations on protected paths.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use common::{Ws, envelope_execute, range};
use serde_json::json;

fn ws() -> Ws {
    let ws = Ws::new();
    ws.config(json!({
        "validators": [{
            "id": "style",
            "builtin": "patterns",
            "rules": [{
                "rule": "no-console",
                "pattern": "console\\.log",
                "message": "use the logger",
                "suggestion": "call logger.debug"
            }],
            "protect": ["migrations/**"]
        }],
        // Let agents delete without a prompt, so the validator is what decides.
        "policy": { "sources": { "ai": { "destructive": "allow" } } }
    }));
    ws.write("src/app.ts", "const x = 1;\nconsole.log(x);\n");
    ws.write("src/clean.ts", "export const y = 2;\n");
    ws.write("migrations/001.sql", "create table t (id int);\n");
    ws
}

/// An agent edit adding `console.log`: CONTENT_VALIDATION_FAILED with violations and
/// suggestions in `error.data.feedback` (JSON-RPC) or `result.feedback` (seed envelope);
/// neither the buffer nor the file changes.
#[test]
fn a_new_console_log_is_blocked_with_feedback() {
    let ws = ws();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let e = c.err_code(
        "ultra.edit",
        json!({ "path": "src/clean.ts", "range": range(1, 0, 1, 0), "text": "console.log(y);\n" }),
        "CONTENT_VALIDATION_FAILED",
    );
    assert_eq!(e["code"], -32011);
    let fb = &e["data"]["feedback"];
    let v = &fb["violations"][0];
    assert_eq!(v["rule"], "no-console", "{fb}");
    assert_eq!(v["message"], "use the logger");
    assert_eq!(v["matchedContent"], "console.log");
    assert_eq!(v["location"]["path"], "src/clean.ts");
    assert_eq!(v["location"]["range"]["start"]["line"], 1);
    assert_eq!(fb["suggestions"][0]["description"], "call logger.debug");
    assert_eq!(fb["priorViolationCount"], 0, "{fb}");
    let now = c.ok("ultra.getFileContent", json!({ "path": "src/clean.ts" }));
    assert_eq!(now["content"], "export const y = 2;\n");
    assert_eq!(now["isDirty"], false);
    assert_eq!(ws.read("src/clean.ts"), "export const y = 2;\n");

    // The seed envelope keeps `feedback` in the CommandResult.
    let r = envelope_execute(
        &mut c,
        "ultra.applyEdits",
        json!({ "files": [{ "path": "src/clean.ts", "edits": [{ "old": "export const y = 2;", "new": "export const y = 2; console.log(y);" }] }], "save": true }),
    );
    let result = &r["result"];
    assert_eq!(result["success"], false, "{r}");
    assert_eq!(result["error"]["code"], "CONTENT_VALIDATION_FAILED");
    assert_eq!(result["feedback"]["violations"][0]["rule"], "no-console");
    assert_eq!(
        result["feedback"]["suggestions"][0]["description"],
        "call logger.debug"
    );
    // The same agent and session hit the rule before: the count says so.
    assert_eq!(result["feedback"]["priorViolationCount"], 1, "{r}");
    assert_eq!(ws.read("src/clean.ts"), "export const y = 2;\n");
    // Another agent starts from nothing.
    let e = ws.agent("other").err_code(
        "ultra.edit",
        json!({ "path": "src/clean.ts", "range": range(1, 0, 1, 0), "text": "console.log(y);\n" }),
        "CONTENT_VALIDATION_FAILED",
    );
    assert_eq!(e["data"]["feedback"]["priorViolationCount"], 0, "{e}");

    // Creating a file with it is blocked too.
    c.err_code(
        "ultra.createFile",
        json!({ "path": "src/new.ts", "content": "console.log(1);\n" }),
        "CONTENT_VALIDATION_FAILED",
    );
    assert!(!ws.exists("src/new.ts"));
    // Adding a second copy of an existing console.log line is still a new one.
    c.err_code(
        "ultra.insertText",
        json!({ "path": "src/app.ts", "text": "console.log(x);\n", "position": {"line": 0, "character": 0} }),
        "CONTENT_VALIDATION_FAILED",
    );

    // The CLI prints the violations and suggestions for an agent.
    let out = ws.cli_with(
        &[
            "-c",
            "ultra.createFile",
            "-a",
            r#"{"path":"src/cli.ts","content":"console.log(2);\n"}"#,
            "--agent",
            "bot",
        ],
        |cmd| {
            cmd.env("ULTRA_SOCKET", &ws.sock);
        },
    );
    assert_eq!(out.code(), 1);
    let err = out.stderr();
    assert!(err.contains("[CONTENT_VALIDATION_FAILED]"), "{err}");
    assert!(err.contains("Violations:"), "{err}");
    assert!(err.contains("✗ [no-console] use the logger"), "{err}");
    assert!(err.contains("Suggestions:"), "{err}");
    assert!(err.contains("→ call logger.debug"), "{err}");
    assert!(!ws.exists("src/cli.ts"));
}

/// Only violations an edit introduces block it: a file that already has a console.log can
/// be edited elsewhere (and the existing one can be removed).
#[test]
fn existing_violations_do_not_block_other_edits() {
    let ws = ws();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok(
        "ultra.edit",
        json!({ "path": "src/app.ts", "range": range(0, 6, 0, 7), "text": "x2" }),
    );
    // Rewriting the line that holds the console.log adds no new one: allowed.
    c.ok(
        "ultra.replaceText",
        json!({ "path": "src/app.ts", "search": "console.log(x)", "replace": "console.log(x2)" }),
    );
    // A second one is new: blocked.
    c.err_code(
        "ultra.insertText",
        json!({ "path": "src/app.ts", "text": "console.log(1);\n", "position": {"line": 0, "character": 0} }),
        "CONTENT_VALIDATION_FAILED",
    );
    // Removing it is fine.
    c.ok(
        "ultra.replaceText",
        json!({ "path": "src/app.ts", "search": "console.log(x2)", "replace": "logger.debug(x2)" }),
    );
    c.ok("ultra.save", json!({ "path": "src/app.ts" }));
    assert_eq!(ws.read("src/app.ts"), "const x2 = 1;\nlogger.debug(x2);\n");
}

/// `protect: ["migrations/**"]` blocks agent delete and rename of `migrations/001.sql`
/// (as source or target), however the path is spelled.
#[test]
fn protected_paths_block_file_operations() {
    let ws = ws();
    // An alias of the protected directory must not be a way around it.
    std::os::unix::fs::symlink("migrations", ws.path("mig")).unwrap();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    for path in [
        "mig/001.sql",
        "migrations/001.sql",
        "./migrations/001.sql",
        "migrations//001.sql",
        "src/../migrations/001.sql",
        "migrations/./001.sql",
    ] {
        let e = c.err_code(
            "ultra.deleteFile",
            json!({ "path": path }),
            "FILE_OPERATION_VALIDATION_FAILED",
        );
        assert_eq!(
            e["data"]["feedback"]["violations"][0]["rule"],
            "protected-path"
        );
        c.err_code(
            "ultra.renameFile",
            json!({ "path": path, "newPath": "old/001.sql" }),
            "FILE_OPERATION_VALIDATION_FAILED",
        );
    }
    c.err_code(
        "ultra.renameFile",
        json!({ "path": "src/clean.ts", "newPath": "migrations/002.sql" }),
        "FILE_OPERATION_VALIDATION_FAILED",
    );
    c.err_code(
        "ultra.renameFile",
        json!({ "path": "src/clean.ts", "newPath": "mig/002.sql" }),
        "FILE_OPERATION_VALIDATION_FAILED",
    );
    c.err_code(
        "ultra.createFile",
        json!({ "path": "migrations/003.sql", "content": "drop table t;\n" }),
        "FILE_OPERATION_VALIDATION_FAILED",
    );
    assert_eq!(ws.read("migrations/001.sql"), "create table t (id int);\n");
    assert!(!ws.exists("old"));
    assert!(!ws.exists("migrations/002.sql"));
    assert!(!ws.exists("migrations/003.sql"));
    assert!(ws.exists("src/clean.ts"));
    // Unprotected files are not affected.
    c.ok(
        "ultra.renameFile",
        json!({ "path": "src/clean.ts", "newPath": "src/tidy.ts" }),
    );
    c.ok("ultra.deleteFile", json!({ "path": "src/tidy.ts" }));
    assert!(!ws.exists("src/tidy.ts"));
}

/// Seed 000's `ultra.moveFile` is `ultra.renameFile` to validators: the same file
/// operation (`rename`, paths as the workspace names them) reaches a plugin, and protected
/// paths block it as they block a rename, as source or target.
#[test]
fn move_file_is_seen_as_a_rename() {
    let ws = ws();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    for (id, args) in [
        (
            "ultra.moveFile",
            json!({ "path": "migrations/001.sql", "newPath": "old/001.sql" }),
        ),
        (
            "ultra.moveFile",
            json!({ "path": "src/clean.ts", "newPath": "migrations/002.sql" }),
        ),
        (
            "ultra.renameFile",
            json!({ "path": "src/clean.ts", "newPath": "migrations/002.sql" }),
        ),
    ] {
        let e = c.err_code(id, args, "FILE_OPERATION_VALIDATION_FAILED");
        assert_eq!(
            e["data"]["feedback"]["violations"][0]["rule"], "protected-path",
            "{id}: {e}"
        );
    }
    assert!(ws.exists("migrations/001.sql") && ws.exists("src/clean.ts"));
    assert!(!ws.exists("migrations/002.sql"));
    drop(_server);

    let ws = with_plugin("warn", "deny");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok(
        "ultra.renameFile",
        json!({ "path": "notes.md", "newPath": "a/notes.md" }),
    );
    let moved = c.ok(
        "ultra.moveFile",
        json!({ "path": "./a/notes.md", "newPath": "b/notes.md" }),
    );
    assert_eq!(moved["newPath"], "b/notes.md", "{moved}");
    assert_eq!(ws.read("b/notes.md"), "hello\n");
    let log = std::fs::read_to_string(ws.path("plugin.log")).unwrap();
    let ops: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("validateFileOperation "))
        .collect();
    assert_eq!(
        ops,
        [
            r#"{"operation": "rename", "paths": {"source": "notes.md", "target": "a/notes.md"}}"#,
            r#"{"operation": "rename", "paths": {"source": "a/notes.md", "target": "b/notes.md"}}"#,
        ],
        "{log}"
    );
}

/// Shell writes from agents pass through the validators, write by write: a redirect,
/// `sed -i`, the typed `write` tool or `rm` that would break a rule is refused (the file is
/// untouched, the refusal is in `errors` and the feedback in the result); clean writes land.
#[test]
fn shell_writes_pass_through_validators() {
    let ws = ws();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "cat src/app.ts | wc -l" }),
    );
    assert_eq!(out["exitCode"], 0, "{out}");

    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "echo 'console.log(1)' >> src/clean.ts; echo next" }),
    );
    assert_eq!(out["stdout"], "next\n", "{out}");
    let e = &out["errors"][0];
    assert_eq!(e["code"], "write_refused", "{out}");
    assert_eq!(e["command"], "src/clean.ts");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("use the logger (no-console)"),
        "{out}"
    );
    assert!(
        out["stderr"]
            .as_str()
            .unwrap()
            .contains("blocked by validator"),
        "{out}"
    );
    assert_eq!(ws.read("src/clean.ts"), "export const y = 2;\n");

    // The seed envelope carries the validator's feedback with the result.
    let r = envelope_execute(
        &mut c,
        "ultra.shell.run",
        json!({ "script": "sed -i 's/const y = 2/console.log(2)/' src/clean.ts" }),
    );
    assert_eq!(r["result"]["data"]["exitCode"], 4, "{r}");
    assert_eq!(
        r["result"]["feedback"]["violations"][0]["rule"], "no-console",
        "{r}"
    );
    assert_eq!(ws.read("src/clean.ts"), "export const y = 2;\n");

    let out = c.ok(
        "shell.write",
        json!({ "path": "src/new.ts", "content": "console.log(3);\n" }),
    );
    assert_eq!(out["exitCode"], 1, "{out}");
    assert_eq!(out["errors"][0]["code"], "write_refused");
    assert!(!ws.exists("src/new.ts"));

    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "rm migrations/001.sql" }),
    );
    assert_eq!(out["exitCode"], 1, "{out}");
    assert!(
        out["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("protected"),
        "{out}"
    );
    assert!(ws.exists("migrations/001.sql"));

    // Writes from inside loops, functions and conditionals meet the same validators.
    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "log() { echo \"console.log($1)\" >> src/clean.ts; }; for i in 1 2; do if [ $i = 2 ]; then log $i; fi; done; echo next" }),
    );
    assert_eq!(out["stdout"], "next\n", "{out}");
    assert_eq!(out["errors"][0]["code"], "write_refused", "{out}");
    assert_eq!(ws.read("src/clean.ts"), "export const y = 2;\n");

    // Clean writes land, through every route.
    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "echo 'export const z = 3;' >> src/clean.ts && write src/ok.ts 'export {};' && cp src/ok.ts src/ok2.ts" }),
    );
    assert_eq!(out["exitCode"], 0, "{out}");
    assert!(out.get("errors").is_none(), "{out}");
    assert_eq!(
        ws.read("src/clean.ts"),
        "export const y = 2;\nexport const z = 3;\n"
    );
    assert_eq!(ws.read("src/ok2.ts"), "export {};\n");
}

/// A shell write to a file open in a buffer: a clean buffer follows the new content at
/// once; a buffer with unsaved changes is not overwritten behind the editor's back.
#[test]
fn shell_writes_meet_open_buffers() {
    let ws = ws();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("ultra.openFile", json!({ "path": "src/clean.ts" }));
    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "echo 'export const w = 4;' >> src/clean.ts" }),
    );
    assert_eq!(out["exitCode"], 0, "{out}");
    let now = c.ok("ultra.getFileContent", json!({ "path": "src/clean.ts" }));
    assert_eq!(
        now["content"], "export const y = 2;\nexport const w = 4;\n",
        "{now}"
    );
    assert_eq!(now["isDirty"], false);

    c.ok(
        "ultra.edit",
        json!({ "path": "src/clean.ts", "range": range(0, 0, 0, 0), "text": "// wip\n" }),
    );
    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "write src/clean.ts 'replaced'" }),
    );
    assert_eq!(out["exitCode"], 1, "{out}");
    assert!(
        out["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("unsaved changes"),
        "{out}"
    );
    assert_eq!(
        ws.read("src/clean.ts"),
        "export const y = 2;\nexport const w = 4;\n"
    );
    let now = c.ok("ultra.getFileContent", json!({ "path": "src/clean.ts" }));
    assert!(
        now["content"].as_str().unwrap().starts_with("// wip\n"),
        "{now}"
    );
}

/// The built-in syntax gate: an agent's edit that breaks the parse is not applied and the
/// feedback names the new error with the proposed text; an edit to a file that was already
/// broken is judged only on the errors it adds; people are not gated; config turns it off.
#[test]
fn the_syntax_gate_blocks_new_parse_errors_only() {
    let ws = Ws::new();
    ws.write(
        "src/a.ts",
        "export function a(x: number) {\n  return x;\n}\n",
    );
    ws.write("src/broken.ts", "export function b( {\n}\n");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let e = c.err_code(
        "ultra.applyEdits",
        json!({"files": [{"path": "src/a.ts", "edits": [{"old": "return x;", "new": "return (x;"}]}], "save": true}),
        "CONTENT_VALIDATION_FAILED",
    );
    let fb = &e["data"]["feedback"];
    let v = &fb["violations"][0];
    assert_eq!(v["rule"], "syntax", "{fb}");
    assert!(v["message"].as_str().unwrap().contains("line 2"), "{fb}");
    assert_eq!(v["location"]["path"], "src/a.ts");
    let text = fb.to_string();
    assert!(
        text.contains("Not applied") && text.contains("return (x;"),
        "{fb}"
    );
    assert_eq!(
        ws.read("src/a.ts"),
        "export function a(x: number) {\n  return x;\n}\n"
    );
    // Already broken: a comment added above shifts the old error and passes.
    c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "src/broken.ts", "edits": [{"old": "export function b(", "new": "// fix me\nexport function b("}]}], "save": true}),
    );
    assert!(ws.read("src/broken.ts").starts_with("// fix me\n"));
}

#[test]
fn the_syntax_gate_can_be_turned_off() {
    let ws = Ws::new();
    ws.config(json!({"validators": [{"id": "syntax", "builtin": "syntax", "enabled": false}]}));
    ws.write("src/a.ts", "export const a = 1;\n");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "src/a.ts", "edits": [{"old": "= 1;", "new": "= (1;"}]}], "save": true}),
    );
    assert_eq!(ws.read("src/a.ts"), "export const a = (1;\n");
}

/// A workspace whose one validator is the Python plugin fixture in `mode`.
fn with_plugin(mode: &str, failure: &str) -> Ws {
    let ws = Ws::new();
    let plugin =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validator_plugin/plugin.py");
    ws.config(json!({"validators": [{
        "id": format!("plugin-{mode}"),
        "command": ["python3", plugin.to_str().unwrap(), mode],
        "timeoutMs": 800,
        "failure": failure,
    }]}));
    ws.write("notes.md", "hello\n");
    ws
}

fn edit_notes(c: &mut common::Conn, text: &str) -> serde_json::Value {
    c.call(
        "ultra.applyEdits",
        json!({"files": [{"path": "notes.md", "edits": [{"old": "hello", "new": text}]}], "save": true}),
    )
}

/// Out-of-process validator plugins (seed 000) in Python: a blocking verdict reaches the
/// agent as feedback; a warning lets the edit through; a plugin that crashes, hangs or
/// answers garbage blocks the call (C8) unless configured to fail open.
#[test]
fn plugins_block_warn_and_fail_closed() {
    let ws = with_plugin("block", "deny");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let r = edit_notes(&mut c, "FORBIDDEN");
    assert_eq!(
        r["error"]["data"]["code"], "CONTENT_VALIDATION_FAILED",
        "{r}"
    );
    let fb = &r["error"]["data"]["feedback"];
    assert_eq!(fb["violations"][0]["rule"], "no-forbidden", "{fb}");
    assert_eq!(
        fb["suggestions"][0]["description"], "write ALLOWED instead",
        "{fb}"
    );
    assert!(
        fb.to_string()
            .contains("The team does not write FORBIDDEN."),
        "{fb}"
    );
    assert_eq!(ws.read("notes.md"), "hello\n");
    let r = edit_notes(&mut c, "fine");
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(ws.read("notes.md"), "fine\n");
    let log = std::fs::read_to_string(ws.path("plugin.log")).unwrap();
    assert!(
        log.starts_with("initialize\n") && log.contains("validateContent"),
        "{log}"
    );

    let ws = with_plugin("warn", "deny");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let r = edit_notes(&mut c, "FORBIDDEN");
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(ws.read("notes.md"), "FORBIDDEN\n");

    for mode in ["crash", "hang", "garbage"] {
        let ws = with_plugin(mode, "deny");
        let _server = ws.serve();
        let mut c = ws.agent("bot");
        let t = std::time::Instant::now();
        let r = edit_notes(&mut c, "anything");
        assert_eq!(r["error"]["data"]["code"], "VALIDATOR_ERROR", "{mode}: {r}");
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "{mode}");
        assert_eq!(ws.read("notes.md"), "hello\n", "{mode}");
        // And again: a dead plugin is started afresh, and still fails closed.
        let r = edit_notes(&mut c, "anything");
        assert_eq!(r["error"]["data"]["code"], "VALIDATOR_ERROR", "{mode}: {r}");
    }

    let ws = with_plugin("crash", "allow");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let r = edit_notes(&mut c, "anyway");
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(ws.read("notes.md"), "anyway\n");
}

/// Seed 000's own example config (`validators: [{id, module, enabled}]`) is accepted:
/// reads keep working, and an agent's write fails closed naming the plugin that cannot
/// start. A `.py` module runs through python3 as a plugin.
#[test]
fn seed_000_module_validators() {
    let ws = Ws::new();
    ws.config(json!({
        "validators": [{ "id": "cor", "module": "@cor/ultra-plugin", "enabled": true }],
        "ipc": { "enabled": true },
        "commands": { "aliases": { "o": "ultra.openFile", "s": "ultra.save", "q": "ultra.quit" } }
    }));
    ws.write("notes.md", "hello\n");
    let out = ws.cli(&["-c", "ultra.getFileContent:notes.md"]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let got = c.ok("ultra.getFileContent", json!({ "path": "notes.md" }));
    assert_eq!(got["content"], "hello\n");
    let r = edit_notes(&mut c, "changed");
    assert_eq!(r["error"]["data"]["code"], "VALIDATOR_ERROR", "{r}");
    assert!(r["error"].to_string().contains("cor"), "{r}");
    assert_eq!(ws.read("notes.md"), "hello\n");
    drop(_server);

    let plugin =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validator_plugin/plugin.py");
    let ws = Ws::new();
    ws.write(
        "tools/guard.py",
        &format!(
            "import sys\nsys.argv = ['plugin.py', 'block']\nexec(open({:?}).read())\n",
            plugin.to_str().unwrap()
        ),
    );
    ws.config(json!({ "validators": [{ "id": "guard", "module": "tools/guard.py" }] }));
    ws.write("notes.md", "hello\n");
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let r = edit_notes(&mut c, "FORBIDDEN");
    assert_eq!(
        r["error"]["data"]["code"], "CONTENT_VALIDATION_FAILED",
        "{r}"
    );
    let r = edit_notes(&mut c, "fine");
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(ws.read("notes.md"), "fine\n");
}
