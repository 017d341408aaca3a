//! Moving a code file updates what imports it (issue 22), through the binary against real
//! typescript-language-server: its `workspace/willRenameFiles` edits and the move land as
//! one saved batch (the move as a removed and a created file), undo puts the file back and
//! the imports as they were, on disk, and redo moves it again; `updateImports: false`
//! moves the file alone, and a file whose language has no server moves as before.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

const UTIL: &str = "import { base } from \"./extra\";\n\nexport function double(n: number): number {\n  return base * n;\n}\n";
const MAIN: &str = "import { double } from \"./util\";\n\nexport const x = double(2);\n";
const DEEP: &str = "import { double } from \"../util\";\n\nexport const y = double(3);\n";
const EXTRA: &str = "export const base = 2;\n";

fn with_typescript() -> Ws {
    let ws = Ws::new();
    ws.write("tsconfig.json", r#"{"compilerOptions": {"strict": true}}"#);
    ws.write("src/util.ts", UTIL);
    ws.write("src/main.ts", MAIN);
    ws.write("src/lib/deep.ts", DEEP);
    ws.write("src/extra.ts", EXTRA);
    ws.write("notes/todo.md", "move me\n");
    ws.config(json!({"lsp": {
        "typescript": {"command": common::typescript_server().to_string_lossy(), "args": ["--stdio"]},
        "python": {"enabled": false}
    }}));
    ws
}

/// Wait until tsserver has the project loaded: it has judged a file of it (a busy machine
/// can take longer than one answer's wait).
fn ready(c: &mut common::Conn) {
    common::wait_until("typescript to be ready", || {
        let d = c.ok("state.getDiagnostics", json!({"path": "src/main.ts"}));
        d["languageServer"]["state"] == "ready"
    });
}

/// The changed files of an answer, as (path, `file`, `renamedFrom`).
fn changed(v: &Value) -> Vec<(String, Option<String>, Option<String>)> {
    let mut out: Vec<_> = v["files"]
        .as_array()
        .unwrap_or_else(|| panic!("files: {v}"))
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["file"].as_str().map(str::to_string),
                f["renamedFrom"].as_str().map(str::to_string),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn moving_a_file_updates_its_importers_in_one_undoable_batch() {
    let ws = with_typescript();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    ready(&mut c);

    let moved = c.ok(
        "ultra.renameFile",
        json!({"path": "src/util.ts", "newPath": "src/core/util.ts"}),
    );
    assert_eq!(moved["applied"], true, "{moved}");
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        changed(&moved),
        [
            (
                "src/core/util.ts".to_string(),
                s("created"),
                s("src/util.ts")
            ),
            ("src/lib/deep.ts".to_string(), None, None),
            ("src/main.ts".to_string(), None, None),
            ("src/util.ts".to_string(), s("removed"), None),
        ],
        "{moved}"
    );
    assert!(!ws.exists("src/util.ts"));
    // The moved file's own import follows it too.
    assert_eq!(
        ws.read("src/core/util.ts"),
        UTIL.replace("\"./extra\"", "\"../extra\"")
    );
    assert_eq!(
        ws.read("src/main.ts"),
        MAIN.replace("\"./util\"", "\"./core/util\"")
    );
    assert_eq!(
        ws.read("src/lib/deep.ts"),
        DEEP.replace("\"../util\"", "\"../core/util\"")
    );
    assert_eq!(moved["newDiagnostics"], json!([]), "{moved}");

    // One undo puts it all back, on disk.
    let undone = c.ok("ultra.undo", json!({"txnId": moved["txnId"]}));
    assert!(!ws.exists("src/core/util.ts"), "{undone}");
    assert_eq!(ws.read("src/util.ts"), UTIL);
    assert_eq!(ws.read("src/main.ts"), MAIN);
    assert_eq!(ws.read("src/lib/deep.ts"), DEEP);
    // And a redo moves it again.
    c.ok("ultra.redo", json!({"txnId": moved["txnId"]}));
    assert!(!ws.exists("src/util.ts"));
    assert_eq!(
        ws.read("src/main.ts"),
        MAIN.replace("\"./util\"", "\"./core/util\"")
    );
    c.ok("ultra.undo", json!({"txnId": moved["txnId"]}));
    assert_eq!(ws.read("src/util.ts"), UTIL);
    // A path spelled another way names the same file to the server.
    let again = c.ok(
        "ultra.renameFile",
        json!({"path": "./src/util.ts", "newPath": "src/core/util.ts"}),
    );
    assert_eq!(
        ws.read("src/main.ts"),
        MAIN.replace("\"./util\"", "\"./core/util\""),
        "{again}"
    );
    c.ok("ultra.undo", json!({"txnId": again["txnId"]}));
    assert_eq!(ws.read("src/main.ts"), MAIN);

    // Asked not to, the file moves alone.
    let alone = c.ok(
        "ultra.renameFile",
        json!({"path": "src/extra.ts", "newPath": "src/more/extra.ts", "updateImports": false}),
    );
    assert!(alone.get("txnId").is_none(), "{alone}");
    assert_eq!(ws.read("src/more/extra.ts"), EXTRA);
    assert_eq!(
        ws.read("src/util.ts"),
        UTIL,
        "its importer is left as it was"
    );

    // A file no language server handles moves as it always did, with nothing to say.
    let plain = c.ok(
        "ultra.renameFile",
        json!({"path": "notes/todo.md", "newPath": "notes/done.md"}),
    );
    assert_eq!(
        plain,
        json!({"path": "notes/todo.md", "newPath": "notes/done.md"})
    );
    // Asking for updates where none can be made is an error that moves nothing.
    c.err_code(
        "ultra.renameFile",
        json!({"path": "notes/done.md", "newPath": "notes/x.md", "updateImports": true}),
        "LANGUAGE_SERVER_UNAVAILABLE",
    );
    assert!(ws.exists("notes/done.md"));
}

/// The target of a move is confined like any write, and taken as an entry: a move out of
/// the workspace or over a symlink is refused before anything changes (through the link,
/// it would create the file the link names), and a symlink moves alone.
#[test]
fn a_move_out_of_the_workspace_or_through_a_link_changes_nothing() {
    let ws = with_typescript();
    // Overwriting is destructive: allowed here, so that confinement is what refuses.
    let mut config: Value = serde_json::from_str(&ws.read("ultra.config.json")).unwrap();
    config["policy"] = json!({ "commands": { "ultra.renameFile": "allow" } });
    ws.config(config);
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    ready(&mut c);
    let e = c.err(
        "ultra.renameFile",
        json!({"path": "src/util.ts", "newPath": "../outside.ts"}),
    );
    assert!(
        ["PATH_OUTSIDE_WORKSPACE", "INVALID_PATH"].contains(&e["data"]["code"].as_str().unwrap()),
        "{e}"
    );
    assert_eq!(ws.read("src/util.ts"), UTIL);
    assert_eq!(ws.read("src/main.ts"), MAIN);

    // A symlink moves as a link, alone: the file it points to stays where it is.
    std::os::unix::fs::symlink("util.ts", ws.path("src/alias.ts")).unwrap();
    let link = c.ok(
        "ultra.renameFile",
        json!({"path": "src/alias.ts", "newPath": "src/lib/alias.ts"}),
    );
    assert!(link.get("txnId").is_none(), "{link}");
    assert!(ws.path("src/lib/alias.ts").is_symlink());
    assert_eq!(ws.read("src/util.ts"), UTIL);
    // A move over a symlink is not made through it: the file it points to is not
    // replaced, and nothing changes.
    let e = c.err(
        "ultra.renameFile",
        json!({"path": "src/util.ts", "newPath": "src/lib/alias.ts", "overwrite": true}),
    );
    assert_eq!(e["data"]["code"], "INVALID_ARGUMENTS", "{e}");
    assert!(ws.path("src/lib/alias.ts").is_symlink());
    assert_eq!(ws.read("src/util.ts"), UTIL);
    assert_eq!(ws.read("src/main.ts"), MAIN);
}

/// A move with its importers' edits is all or nothing on disk whatever instant `kill -9`
/// lands: each restart finds the file at its old path with every importer as it was, or
/// at its new path with every importer updated, and no journal is left.
#[test]
fn a_move_is_all_or_nothing_across_kill_9() {
    let ws = with_typescript();
    let moved_main = MAIN.replace("\"./util\"", "\"./core/util\"");
    let reset = || {
        let _ = std::fs::remove_file(ws.path("src/core/util.ts"));
        ws.write("src/util.ts", UTIL);
        ws.write("src/main.ts", MAIN);
        ws.write("src/lib/deep.ts", DEEP);
    };
    let params = json!({"path": "src/util.ts", "newPath": "src/core/util.ts"});
    // How long a move takes here, to spread the kills over it.
    let took = {
        let _server = ws.serve();
        let mut c = ws.agent("bot");
        ready(&mut c);
        let t = std::time::Instant::now();
        c.ok("ultra.renameFile", params.clone());
        t.elapsed()
    };
    reset();
    let mut outcomes = [0usize; 2];
    for round in 1..=6u32 {
        let mut server = ws.serve();
        let mut c = ws.agent("bot");
        ready(&mut c);
        c.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "ultra.renameFile", "params": params}));
        // The first move is the slowest (tsserver warms up): spread over its first half.
        std::thread::sleep(took.mul_f64(f64::from(round - 1) / 10.0));
        server.kill9();
        // Recovery runs when the workspace opens again.
        let _server = ws.serve();
        let old = ws.exists("src/util.ts")
            && !ws.exists("src/core/util.ts")
            && ws.read("src/util.ts") == UTIL
            && ws.read("src/main.ts") == MAIN
            && ws.read("src/lib/deep.ts") == DEEP;
        let new = !ws.exists("src/util.ts")
            && ws.exists("src/core/util.ts")
            && ws.read("src/main.ts") == moved_main
            && ws.read("src/lib/deep.ts") == DEEP.replace("\"../util\"", "\"../core/util\"");
        assert!(
            old || new,
            "round {round}: a half-done move: util {:?}, core/util {:?}, main {:?}",
            ws.exists("src/util.ts"),
            ws.exists("src/core/util.ts"),
            ws.read("src/main.ts")
        );
        outcomes[usize::from(new)] += 1;
        reset();
    }
    assert_eq!(common::journals_left(&ws), 0, "journals left behind");
    eprintln!(
        "kills: {} before the move committed, {} after",
        outcomes[0], outcomes[1]
    );
}
