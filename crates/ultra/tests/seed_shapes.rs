//! What real clients send, through the real binary: seed 004's argument shapes for the
//! `shell` tool (`{command}`) and the promoted commands (`grep {pattern, path, include}`,
//! `find {path, name, type}`, `sed {file, pattern, replacement, flags}`), strings or arrays
//! where the seed takes either, next to Ultra's own shapes; two names for one argument
//! given together, or a value of the wrong type, is INVALID_ARGUMENTS naming the fields.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

fn fixture() -> Ws {
    let ws = Ws::new();
    ws.write("src/main.rs", "fn main() {\n    run();\n}\n");
    ws.write("src/lib.rs", "pub fn run() {}\n// TODO: more\n");
    ws.write("src/web/app.ts", "// TODO: ts\n");
    ws.write("notes.md", "alpha\nbeta\n");
    ws
}

/// `ultra -c COMMAND -a ARGS --json`: the one reply.
fn call(ws: &Ws, command: &str, args: Value) -> Value {
    let out = ws.cli(&["-c", command, "-a", &args.to_string(), "--json"]);
    out.json()[0].clone()
}

/// A successful call's data.
fn data(ws: &Ws, command: &str, args: Value) -> Value {
    let v = call(ws, command, args);
    assert_eq!(v["success"], true, "{v}");
    v["data"].clone()
}

/// A refused call's error, asserted to be INVALID_ARGUMENTS.
fn invalid(ws: &Ws, command: &str, args: Value) -> Value {
    let v = call(ws, command, args);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENTS", "{v}");
    v["error"].clone()
}

/// (stdout, exitCode) of a typed call.
fn run(ws: &Ws, command: &str, args: Value) -> (String, i64) {
    let d = data(ws, command, args);
    (
        d["stdout"].as_str().unwrap().to_string(),
        d["exitCode"].as_i64().unwrap(),
    )
}

#[test]
fn shell_takes_the_script_as_command_or_script() {
    let ws = fixture();
    for key in ["command", "script"] {
        let (out, st) = run(
            &ws,
            "ultra.shell.run",
            json!({ key: "grep -c a notes.md | tr 2 X" }),
        );
        assert_eq!((out.as_str(), st), ("X\n", 0), "{key}");
    }
    // Both, or neither: refused, naming the two.
    let e = invalid(
        &ws,
        "ultra.shell.run",
        json!({"command": "echo a", "script": "echo b"}),
    );
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("`script`") && msg.contains("`command`"), "{e}");
    let e = invalid(&ws, "ultra.shell.run", json!({"stdin": "x"}));
    assert_eq!(e["details"]["issues"][0]["code"], "missing_field", "{e}");
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("`script`") && msg.contains("`command`"), "{e}");
    // Anything else is still unknown.
    let e = invalid(
        &ws,
        "ultra.shell.run",
        json!({"command": "echo a", "cmd": "x"}),
    );
    assert_eq!(e["details"]["issues"][0]["code"], "unknown_field", "{e}");
}

/// The script's risk is judged the same under either name: an agent's read runs, its
/// delete waits for a person, and `security.restrictedCommands` names the programs of a
/// `command` as of a `script`.
#[test]
fn the_plan_judges_a_command_as_a_script() {
    let ws = fixture();
    ws.config(json!({ "security": { "restrictedCommands": ["build"] } }));
    let _server = ws.serve();
    let mut agent = ws.agent("bot");
    for key in ["command", "script"] {
        let r = agent.ok("ultra.shell.run", json!({ key: "cat notes.md" }));
        assert_eq!(r["stdout"], "alpha\nbeta\n", "{key}: {r}");
        agent.err_code(
            "ultra.shell.run",
            json!({ key: "rm notes.md" }),
            "CONFIRMATION_REQUIRED",
        );
        assert!(ws.exists("notes.md"), "{key}");
        let e = agent.err_code(
            "ultra.shell.run",
            json!({ key: "echo hi && build" }),
            "ACCESS_DENIED",
        );
        assert!(e.to_string().contains("build"), "{key}: {e}");
    }
}

#[test]
fn grep_takes_the_seed_shape() {
    let ws = fixture();
    let both = "src/lib.rs:pub fn run() {}\nsrc/main.rs:    run();\n";
    // `path` a directory: searched recursively, lines named by file (as `grep -r`).
    assert_eq!(
        run(&ws, "shell.grep", json!({"pattern": "run", "path": "src"})),
        (both.to_string(), 0)
    );
    assert_eq!(
        run(&ws, "shell.grep", json!({"pattern": "run", "path": "src/"})),
        (both.to_string(), 0)
    );
    // `path` an array; a single file is not named (as grep does).
    assert_eq!(
        run(
            &ws,
            "shell.grep",
            json!({"pattern": "run", "path": ["src/lib.rs", "src/main.rs"]})
        ),
        (both.to_string(), 0)
    );
    assert_eq!(
        run(
            &ws,
            "shell.grep",
            json!({"pattern": "b", "path": "notes.md"})
        ),
        ("beta\n".to_string(), 0)
    );
    // `include` a string, a brace glob, or an array.
    assert_eq!(
        run(
            &ws,
            "shell.grep",
            json!({"pattern": "TODO", "include": "*.rs"})
        ),
        ("src/lib.rs:// TODO: more\n".to_string(), 0)
    );
    assert_eq!(
        run(
            &ws,
            "shell.grep",
            json!({"pattern": "TODO", "path": "src/", "include": "*.{ts,tsx}"})
        ),
        ("src/web/app.ts:// TODO: ts\n".to_string(), 0)
    );
    assert_eq!(
        run(
            &ws,
            "shell.grep",
            json!({"pattern": "TODO|alpha", "include": ["*.md", "*.ts"]})
        ),
        (
            "notes.md:alpha\nsrc/web/app.ts:// TODO: ts\n".to_string(),
            0
        )
    );
    // Today's shape is unchanged, and `recursive: false` still refuses a directory.
    assert_eq!(
        run(
            &ws,
            "shell.grep",
            json!({"pattern": "run", "paths": ["src"], "recursive": true})
        ),
        (both.to_string(), 0)
    );
    let d = data(
        &ws,
        "shell.grep",
        json!({"pattern": "run", "path": "src", "recursive": false}),
    );
    assert_eq!(d["exitCode"], 2, "{d}");
    assert_eq!(d["stderr"], "grep: src: Is a directory\n");
    // No match is exit status 1.
    assert_eq!(
        run(&ws, "shell.grep", json!({"pattern": "zzz", "path": "src"})),
        (String::new(), 1)
    );
}

#[test]
fn grep_refuses_conflicting_or_mistyped_shapes() {
    let ws = fixture();
    let e = invalid(
        &ws,
        "shell.grep",
        json!({"pattern": "run", "path": "src", "paths": ["src"]}),
    );
    let issue = &e["details"]["issues"][0];
    assert_eq!(issue["code"], "conflicting_fields", "{e}");
    let msg = issue["message"].as_str().unwrap();
    assert!(msg.contains("`path`") && msg.contains("`paths`"), "{e}");
    let e = invalid(&ws, "shell.grep", json!({"pattern": "run", "include": 5}));
    assert_eq!(e["details"]["issues"][0]["path"], "/include", "{e}");
    assert_eq!(e["details"]["issues"][0]["code"], "invalid_type", "{e}");
    let e = invalid(
        &ws,
        "shell.grep",
        json!({"pattern": "run", "include": ["*.rs", 1]}),
    );
    assert_eq!(e["details"]["issues"][0]["path"], "/include/1", "{e}");
    let e = invalid(
        &ws,
        "shell.grep",
        json!({"pattern": "run", "files": ["src"]}),
    );
    assert_eq!(e["details"]["issues"][0]["code"], "unknown_field", "{e}");
}

#[test]
fn find_takes_the_seed_shape() {
    let ws = fixture();
    assert_eq!(
        run(
            &ws,
            "shell.find",
            json!({"path": "src", "name": "*.rs", "type": "f"})
        ),
        ("src/lib.rs\nsrc/main.rs\n".to_string(), 0)
    );
    assert_eq!(
        run(&ws, "shell.find", json!({"path": "src", "type": "d"})),
        ("src\nsrc/web\n".to_string(), 0)
    );
    // No path: from `.`, as find does.
    assert_eq!(
        run(&ws, "shell.find", json!({"name": "*.md"})),
        ("./notes.md\n".to_string(), 0)
    );
    // Arrays where the seed's strings go; today's shape, and `-path` as `wholename`.
    assert_eq!(
        run(
            &ws,
            "shell.find",
            json!({"path": ["src/web", "notes.md"], "name": ["*.ts", "*.md"], "type": ["f", "l"]})
        ),
        ("src/web/app.ts\nnotes.md\n".to_string(), 0)
    );
    assert_eq!(
        run(
            &ws,
            "shell.find",
            json!({"paths": ["src"], "wholename": "*/web/*"})
        ),
        ("src/web/app.ts\n".to_string(), 0)
    );
    let (out, _, st) = {
        let o = ws.cli(&["sh", "find src -path '*/web/*'"]);
        (o.stdout(), o.stderr(), o.code())
    };
    assert_eq!((out.as_str(), st), ("src/web/app.ts\n", 0));
    // A missing start is exit status 1, as find's.
    let d = data(&ws, "shell.find", json!({"path": "nope"}));
    assert_eq!(d["exitCode"], 1, "{d}");
}

#[test]
fn find_refuses_conflicting_or_mistyped_shapes() {
    let ws = fixture();
    let e = invalid(&ws, "shell.find", json!({"path": "src", "paths": ["."]}));
    assert_eq!(
        e["details"]["issues"][0]["code"], "conflicting_fields",
        "{e}"
    );
    let e = invalid(&ws, "shell.find", json!({"type": "x"}));
    let issue = &e["details"]["issues"][0];
    assert_eq!(issue["path"], "/type", "{e}");
    assert!(
        issue["message"].as_str().unwrap().contains("`f`, `d`, `l`"),
        "{e}"
    );
    let e = invalid(&ws, "shell.find", json!({"name": {"glob": "*.rs"}}));
    assert_eq!(e["details"]["issues"][0]["code"], "invalid_type", "{e}");
}

#[test]
fn sed_takes_the_seed_shape() {
    let ws = fixture();
    // `file`: the substitution is made in place, printing nothing.
    assert_eq!(
        run(
            &ws,
            "shell.sed",
            json!({"file": "notes.md", "pattern": "a", "replacement": "A", "flags": "g"})
        ),
        (String::new(), 0)
    );
    assert_eq!(ws.read("notes.md"), "AlphA\nbetA\n");
    // Without flags, the first match of each line; the replacement's `&` and groups work.
    ws.write("notes.md", "alpha alpha\nbeta\n");
    let (_, st) = run(
        &ws,
        "shell.sed",
        json!({"file": "notes.md", "pattern": "(al)pha", "replacement": "[\\1&]", "flags": "", "extended": true}),
    );
    assert_eq!(st, 0);
    assert_eq!(ws.read("notes.md"), "[alalpha] alpha\nbeta\n");
    // A missing file: sed's message and status, nothing created.
    let d = data(
        &ws,
        "shell.sed",
        json!({"file": "nope.txt", "pattern": "a", "replacement": "b"}),
    );
    assert_ne!(d["exitCode"], 0, "{d}");
    assert!(!ws.exists("nope.txt"));
    // Today's `files` shape still prints instead of editing.
    let (out, _) = run(
        &ws,
        "shell.sed",
        json!({"files": ["notes.md"], "pattern": "beta", "replacement": "B"}),
    );
    assert_eq!(out, "[alalpha] alpha\nB\n");
    assert_eq!(ws.read("notes.md"), "[alalpha] alpha\nbeta\n");
}

#[test]
fn sed_refuses_file_and_files_together() {
    let ws = fixture();
    let e = invalid(
        &ws,
        "shell.sed",
        json!({"file": "notes.md", "files": ["notes.md"], "pattern": "a", "replacement": "b"}),
    );
    let issue = &e["details"]["issues"][0];
    assert_eq!(issue["code"], "conflicting_fields", "{e}");
    assert!(
        issue["message"].as_str().unwrap().contains("`files`"),
        "{e}"
    );
    assert_eq!(ws.read("notes.md"), "alpha\nbeta\n");
}

/// Tool lists show both names, each shape plainly (a string or an array of strings).
#[test]
fn schemas_document_the_seed_names() {
    let ws = fixture();
    let text = ws.cli(&["tools", "--format", "openai"]).ok();
    let v: Value = serde_json::from_str(&text).unwrap();
    let params = |name: &str| -> Value {
        v.as_array()
            .unwrap()
            .iter()
            .find(|t| t["function"]["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing"))["function"]["parameters"]
            .clone()
    };
    let one_or_many =
        json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]});
    let grep = params("grep");
    for key in ["path", "include"] {
        assert_eq!(
            grep["properties"][key]["anyOf"], one_or_many["anyOf"],
            "{grep}"
        );
        assert!(grep["properties"][key]["description"].is_string());
    }
    assert!(grep["properties"]["paths"].is_object());
    let find = params("find");
    assert_eq!(
        find["properties"]["path"]["anyOf"], one_or_many["anyOf"],
        "{find}"
    );
    assert_eq!(
        find["properties"]["type"]["anyOf"][0],
        json!({"type": "string", "enum": ["f", "d", "l"]}),
        "{find}"
    );
    assert!(find["properties"]["wholename"].is_object());
    let sed = params("sed");
    for key in ["file", "pattern", "replacement", "flags"] {
        assert!(sed["properties"][key].is_object(), "{key}: {sed}");
    }
    let shell = params("shell");
    for key in ["script", "command"] {
        assert!(
            shell["properties"][key]["description"].is_string(),
            "{key}: {shell}"
        );
    }
}

/// An MCP client calling the tools with the seed's shapes.
#[test]
fn an_mcp_client_sends_the_seed_shapes() {
    let ws = fixture();
    let mut mcp = common::RawMcp::start(&ws, &["--auto-apply"]);
    mcp.initialize("raw");
    let calls = [
        (
            "shell",
            json!({"command": "cat notes.md | grep -c a"}),
            "2\n",
        ),
        (
            "grep",
            json!({"pattern": "TODO", "path": "src/", "include": "*.{ts,tsx}"}),
            "src/web/app.ts:// TODO: ts\n",
        ),
        (
            "find",
            json!({"path": "src", "name": "*.rs", "type": "f"}),
            "src/lib.rs\nsrc/main.rs\n",
        ),
        (
            "sed",
            json!({"file": "notes.md", "pattern": "beta", "replacement": "gamma"}),
            "",
        ),
    ];
    for (id, (tool, args, stdout)) in calls.iter().enumerate() {
        mcp.send(
            json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}),
        );
        let r = mcp.read();
        assert_eq!(r["result"]["isError"], false, "{tool}: {r}");
        let data = &r["result"]["structuredContent"];
        let out = if data.is_object() {
            data["stdout"].as_str().unwrap_or_default().to_string()
        } else {
            let text = r["result"]["content"][0]["text"].as_str().unwrap();
            let v: Value = serde_json::from_str(text).unwrap_or(json!({"stdout": text}));
            v["stdout"].as_str().unwrap_or_default().to_string()
        };
        assert_eq!(out, *stdout, "{tool}: {r}");
    }
    assert_eq!(ws.read("notes.md"), "alpha\ngamma\n");
    // A conflicting shape comes back as a tool error the model can act on.
    mcp.send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "shell", "arguments": {"command": "echo a", "script": "echo b"}}}));
    let r = mcp.read();
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(r.to_string().contains("INVALID_ARGUMENTS"), "{r}");
    assert!(mcp.finish().success());
}
