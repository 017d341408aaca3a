//! `ultra -c` as a user runs it: in process when no server runs, through the server when one
//! does; shorthand, `-a` pairing, `--json`, exit codes and what lands on stderr.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use common::Ws;
use serde_json::{Value, json};

/// With no server, `-c` runs in process on `--root` and prints `{success, data}` with
/// `--json`; it neither creates a socket nor touches anything outside the temp dir.
#[test]
fn runs_in_process_without_a_server() {
    let ws = Ws::new();
    ws.write("src/a.txt", "alpha\n");
    let out = ws.cli(&["-c", "ultra.getWorkspaceInfo", "--json"]);
    out.ok();
    let v = out.json();
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0]["success"], true);
    assert!(v[0].get("error").is_none(), "{}", v[0]);
    assert_eq!(v[0]["data"]["root"], ws.root.display().to_string());
    assert!(v[0]["data"]["commandCount"].as_u64().unwrap() > 30);
    // The audit log went to $XDG_STATE_HOME (inside the temp dir), not to $HOME.
    let audit = ws.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0]["command"], "ultra.getWorkspaceInfo");
    assert_eq!(audit[0]["source"]["type"], "cli");
    // No server was started or left behind.
    let run = ws.base().join("run");
    assert_eq!(std::fs::read_dir(&run).unwrap().count(), 0);
}

/// `cmd:arg` fills the command's main parameter; human output prints the data.
#[test]
fn shorthand_fills_the_main_argument() {
    let ws = Ws::new();
    ws.write("src/a.txt", "alpha\nbeta\n");
    let out = ws.cli(&["-c", "ultra.getFileContent:src/a.txt", "--json"]);
    out.ok();
    let v = &out.json()[0];
    assert_eq!(v["data"]["content"], "alpha\nbeta\n");
    assert_eq!(v["data"]["path"], "src/a.txt");
    // A number fills `line` for commands that have one.
    let out = ws.cli(&[
        "-c",
        "ultra.openFile:src/a.txt",
        "-c",
        "ultra.goToLine:2",
        "-c",
        "ultra.getSelection",
        "--json",
    ]);
    out.ok();
    let v = out.json();
    assert_eq!(v.len(), 3);
    assert_eq!(v[2]["data"]["range"]["start"]["line"], 1, "{}", v[2]);
    // Human output (no --json) prints the data, not the envelope.
    let out = ws.cli(&["-c", "ultra.getFileContent:src/a.txt"]);
    let text = out.ok();
    assert!(text.contains("alpha\\nbeta\\n"), "{text}");
    assert!(!text.contains("\"success\""), "{text}");
}

/// Several `-c`, each `-a` pairing with the `-c` before it; one `-a` alone applies to every
/// `-c` without inline arguments.
#[test]
fn several_commands_pair_with_their_args() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    let out = ws.cli(&[
        "-c",
        "ultra.openFile",
        "-a",
        r#"{"path":"a.txt"}"#,
        "-c",
        "ultra.goToLine",
        "-a",
        r#"{"line":3,"column":2}"#,
        "-c",
        "ultra.getSelection",
        "-a",
        "{}",
        "--json",
    ]);
    out.ok();
    let v = out.json();
    assert_eq!(v.len(), 3, "{v:?}");
    assert!(v.iter().all(|r| r["success"] == true), "{v:?}");
    assert_eq!(v[0]["data"]["path"], "a.txt");
    assert_eq!(
        v[2]["data"]["range"]["start"],
        json!({"line": 2, "character": 1})
    );

    // One -a for two commands without inline args.
    let out = ws.cli(&[
        "-c",
        "ultra.getFileContent",
        "-c",
        "ultra.openFile",
        "-a",
        r#"{"path":"a.txt"}"#,
        "--json",
    ]);
    out.ok();
    let v = out.json();
    assert_eq!(v[0]["data"]["content"], "one\ntwo\nthree\n");
    assert_eq!(v[1]["data"]["path"], "a.txt");

    // Two -a for one -c is a usage error, and nothing runs.
    let out = ws.cli(&["-c", "ultra.openFile", "-a", "{}", "-a", "{}"]);
    assert_eq!(out.code(), 2, "{}", out.stderr());
    assert!(out.stderr().contains("two -a"), "{}", out.stderr());
}

/// A failing command: exit 1, `Error:` with the code and the suggestion on stderr; later
/// commands do not run. With --json the envelope says `success: false`.
#[test]
fn failure_exits_1_with_error_and_suggestion() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let out = ws.cli(&[
        "-c",
        "ultra.openFile:missing.txt",
        "-c",
        "ultra.createFile",
        "-a",
        r#"{"path":"later.txt"}"#,
    ]);
    assert_eq!(out.code(), 1);
    let err = out.stderr();
    assert!(err.contains("Error:"), "{err}");
    assert!(err.contains("[FILE_NOT_FOUND]"), "{err}");
    assert!(err.contains("→ check the path"), "{err}");
    assert!(!ws.exists("later.txt"), "a command after a failure ran");

    let out = ws.cli(&["-c", "ultra.openFile:missing.txt", "--json"]);
    assert_eq!(out.code(), 1);
    let v = &out.json()[0];
    assert_eq!(v["success"], false);
    assert_eq!(v["error"]["code"], "FILE_NOT_FOUND");
    assert_eq!(v["error"]["recoverable"], true);
    assert!(v["error"]["suggestion"].is_string(), "{v}");
}

/// An unknown command names the closest ids.
#[test]
fn unknown_command_names_the_closest_id() {
    let ws = Ws::new();
    let out = ws.cli(&["-c", "ultra.openFle:a.txt"]);
    assert_eq!(out.code(), 1);
    let err = out.stderr();
    assert!(err.contains("[UNKNOWN_COMMAND]"), "{err}");
    assert!(err.contains("did you mean `ultra.openFile`"), "{err}");
    let out = ws.cli(&["-c", "ultra.getWorkspaceInf", "--json"]);
    assert_eq!(out.code(), 1);
    let v = &out.json()[0];
    assert_eq!(v["error"]["code"], "UNKNOWN_COMMAND");
    assert_eq!(
        v["error"]["details"]["closest"][0],
        "ultra.getWorkspaceInfo"
    );
}

/// Wrong arguments: INVALID_ARGUMENTS with the JSON pointer, the usage and examples.
#[test]
fn wrong_arguments_point_at_the_field_and_show_usage() {
    let ws = Ws::new();
    ws.write("a.txt", "hello\n");
    let args = r#"{"path":"a.txt","range":{"start":{"line":"x","character":0},"end":{"line":0,"character":1}},"text":"y"}"#;
    let out = ws.cli(&["-c", "ultra.edit", "-a", args]);
    assert_eq!(out.code(), 1);
    let err = out.stderr();
    assert!(err.contains("[INVALID_ARGUMENTS]"), "{err}");
    assert!(err.contains("/range/start/line"), "{err}");
    assert!(err.contains("Usage: ultra.edit {"), "{err}");
    assert!(err.contains("Example: -a '"), "{err}");

    let out = ws.cli(&["-c", "ultra.edit", "-a", args, "--json"]);
    let v = &out.json()[0];
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENTS");
    let d = &v["error"]["details"];
    assert_eq!(d["issues"][0]["path"], "/range/start/line");
    assert_eq!(d["issues"][0]["code"], "invalid_type");
    assert!(d["usage"].as_str().unwrap().starts_with("ultra.edit"));
    assert!(!d["examples"].as_array().unwrap().is_empty());

    // A missing field is named by its own pointer; an unknown one too.
    let out = ws.cli(&["-c", "ultra.openFile", "-a", "{}", "--json"]);
    assert_eq!(
        out.json()[0]["error"]["details"]["issues"][0]["path"],
        "/path"
    );
    let out = ws.cli(&[
        "-c",
        "ultra.openFile",
        "-a",
        r#"{"path":"a.txt","pth":1}"#,
        "--json",
    ]);
    let issue = &out.json()[0]["error"]["details"]["issues"][0];
    assert_eq!(issue["path"], "/pth");
    assert_eq!(issue["code"], "unknown_field");
    assert_eq!(ws.read("a.txt"), "hello\n");
}

/// Malformed `-a` JSON is a usage error (exit 2); nothing runs.
#[test]
fn malformed_args_json_exits_2() {
    let ws = Ws::new();
    let out = ws.cli(&["-c", "ultra.createFile", "-a", r#"{"path": "x.txt""#]);
    assert_eq!(out.code(), 2);
    assert!(out.stderr().contains("not valid JSON"), "{}", out.stderr());
    assert!(!ws.exists("x.txt"));
    assert!(ws.audit().is_empty(), "nothing should have executed");
}

/// A config with an unknown key: exit 2 naming the key (nested keys by their dotted path).
#[test]
fn config_with_an_unknown_key_exits_2_naming_it() {
    let ws = Ws::new();
    ws.config(json!({ "ipc": { "sockt": "/tmp/x.sock" } }));
    let out = ws.cli(&["-c", "ultra.getWorkspaceInfo"]);
    assert_eq!(out.code(), 2);
    assert!(out.stderr().contains("ipc.sockt"), "{}", out.stderr());
    ws.config(json!({ "bogusKey": true }));
    let out = ws.cli(&["-c", "ultra.getWorkspaceInfo"]);
    assert_eq!(out.code(), 2);
    assert!(out.stderr().contains("bogusKey"), "{}", out.stderr());
    // `ultra serve` refuses it the same way.
    let out = ws.cli(&["serve", "--socket", ws.sock.to_str().unwrap()]);
    assert_eq!(out.code(), 2);
    assert!(out.stderr().contains("bogusKey"), "{}", out.stderr());
}

/// With a server running, `ultra -c` goes through it: state persists across invocations
/// (opened in one call, listed by the next), which in-process runs cannot do.
#[test]
fn talks_to_a_running_server() {
    let ws = Ws::new();
    ws.write("a.txt", "alpha\n");
    // In process, each run starts fresh: nothing open in the second.
    ws.cli(&["-c", "ultra.openFile:a.txt"]).ok();
    let out = ws.cli(&["-c", "ultra.getOpenFiles", "--json"]);
    assert_eq!(out.json()[0]["data"], json!([]));

    let server = ws.serve();
    let sock = server.sock.to_str().unwrap().to_string();
    let via_env = |cmd: &mut std::process::Command| {
        cmd.env("ULTRA_SOCKET", &sock);
    };
    ws.cli_with(&["-c", "ultra.openFile:a.txt"], via_env).ok();
    ws.cli_with(
        &[
            "-c",
            "ultra.edit",
            "-a",
            r#"{"path":"a.txt","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":5}},"text":"ALPHA"}"#,
        ],
        via_env,
    )
    .ok();
    let out = ws.cli_with(&["-c", "ultra.getOpenFiles", "--json"], via_env);
    out.ok();
    let files = &out.json()[0]["data"];
    assert_eq!(files[0]["path"], "a.txt", "{files}");
    assert_eq!(files[0]["isDirty"], true);
    assert_eq!(files[0]["version"], 2);
    // The same through --socket.
    let out = ws.cli(&["--socket", &sock, "-c", "ultra.save:a.txt", "--json"]);
    out.ok();
    assert_eq!(out.json()[0]["data"]["version"], 2);
    assert_eq!(ws.read("a.txt"), "ALPHA\n");
    // The server's audit log shows the CLI's source, with --agent implying ai.
    ws.cli(&[
        "--socket",
        &sock,
        "-c",
        "ultra.getOpenFiles",
        "--agent",
        "bot",
        "--session",
        "s1",
    ])
    .ok();
    let audit = ws.audit();
    let last = audit.last().unwrap();
    assert_eq!(last["command"], "ultra.getOpenFiles");
    assert_eq!(
        last["source"],
        json!({"type": "ai", "agentId": "bot", "sessionId": "s1"})
    );
    let save = audit
        .iter()
        .find(|e| e["command"] == "ultra.save")
        .expect("save audited");
    assert_eq!(save["source"]["type"], "cli");
    drop(server);
}

/// `--socket` naming a server that is not there fails (exit 1) instead of silently running
/// in process somewhere else.
#[test]
fn explicit_socket_without_server_fails() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let missing = ws.base().join("nope.sock");
    let out = ws.cli(&[
        "--socket",
        missing.to_str().unwrap(),
        "-c",
        "ultra.createFile",
        "-a",
        r#"{"path":"b.txt"}"#,
    ]);
    assert_eq!(out.code(), 1);
    assert!(out.stderr().contains("Error:"), "{}", out.stderr());
    assert!(!ws.exists("b.txt"));
}

/// Confinement through the CLI: an agent cannot read outside the root or write `.git`.
#[test]
fn cli_confinement() {
    let ws = Ws::new();
    std::fs::write(ws.base().join("outside.txt"), "secret\n").unwrap();
    ws.write(".git/config", "[core]\n");
    let out = ws.cli(&[
        "-c",
        "ultra.getFileContent:../outside.txt",
        "--agent",
        "bot",
        "--json",
    ]);
    assert_eq!(out.code(), 1);
    let v: &Value = &out.json()[0];
    assert_eq!(v["error"]["code"], "PATH_OUTSIDE_WORKSPACE");
    assert!(!out.stdout().contains("secret"));
    let abs = ws.base().join("outside.txt");
    let out = ws.cli(&[
        "-c",
        "ultra.createFile",
        "-a",
        &json!({"path": abs, "content": "pwned", "overwrite": true}).to_string(),
        "--source",
        "ai",
        "--json",
    ]);
    assert_eq!(out.code(), 1);
    assert_eq!(out.json()[0]["error"]["code"], "PATH_OUTSIDE_WORKSPACE");
    // The default cli source is not a person either: .git stays protected.
    let out = ws.cli(&[
        "-c",
        "ultra.createFile",
        "-a",
        r#"{"path":".GIT/config","content":"pwned","overwrite":true}"#,
    ]);
    assert_eq!(out.code(), 1);
    assert!(
        out.stderr().contains("[RESTRICTED_PATH]"),
        "{}",
        out.stderr()
    );
    assert_eq!(
        std::fs::read_to_string(ws.base().join("outside.txt")).unwrap(),
        "secret\n"
    );
    assert_eq!(ws.read(".git/config"), "[core]\n");
    assert!(!ws.exists(".GIT"));
}

/// `--root` is global: it works before the subcommand (`ultra --root DIR serve`, which every
/// server in these tests uses) and after it; `-c` and friends do not mix with a subcommand.
#[test]
fn root_is_global_and_c_does_not_mix_with_subcommands() {
    let ws = Ws::new();
    let mut cmd = std::process::Command::new(common::BIN);
    cmd.args(["serve", "--root"])
        .arg(&ws.root)
        .arg("--socket")
        .arg(&ws.sock)
        .env("XDG_STATE_HOME", ws.base().join("state"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdin(std::process::Stdio::null());
    let server = common::Server::spawn(cmd, ws.sock.clone());
    server.wait_stderr(&format!("serving {}", ws.root.display()));
    drop(server);
    let out = ws.cli(&["-c", "ultra.getOpenFiles", "serve"]);
    assert_eq!(out.code(), 2);
    assert!(
        out.stderr().contains("cannot be used with a subcommand"),
        "{}",
        out.stderr()
    );
    assert!(ws.audit().is_empty(), "nothing ran");
}

/// `ultra ... | head`: a reader that goes away ends the process quietly with 141 (as it does
/// GNU tools), not with a panic; JSON for a program is one compact line.
#[test]
fn a_closed_pipe_ends_output_quietly() {
    use std::io::Read;
    let ws = Ws::new();
    let mut child = ws
        .command()
        .args(["commands", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first[..2], b"[{", "compact JSON when piped");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Form-building clients (MCP Inspector) send what a text box holds: `"2"` where an
/// integer is expected is read as 2, nested too; text that is no number is still
/// INVALID_ARGUMENTS, naming the field.
#[test]
fn numeric_strings_are_read_as_numbers() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    let out = ws.cli(&[
        "-c",
        "code.getLines",
        "-a",
        r#"{"path":"a.txt","start":"2","end":" 3 "}"#,
        "--json",
    ]);
    out.ok();
    let v = out.json();
    assert_eq!(v[0]["data"]["start"], 2, "{v:?}");
    assert_eq!(v[0]["data"]["end"], 3, "{v:?}");
    let out = ws.cli(&[
        "-c",
        "ultra.applyEdits",
        "-a",
        r#"{"files":[{"path":"a.txt","edits":[{"startLine":"1","endLine":"1","text":"ONE\n"}]}],"save":true}"#,
        "--json",
    ]);
    out.ok();
    assert_eq!(ws.read("a.txt"), "ONE\ntwo\nthree\n");
    let out = ws.cli(&[
        "-c",
        "code.getLines",
        "-a",
        r#"{"path":"a.txt","start":"two"}"#,
        "--json",
    ]);
    assert_eq!(out.code(), 1);
    let v = out.json();
    assert_eq!(v[0]["error"]["code"], "INVALID_ARGUMENTS", "{v:?}");
    assert!(
        v[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/start"),
        "{v:?}"
    );
}
