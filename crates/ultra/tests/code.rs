//! Seed 001's code tools through the real binary on a mixed-language workspace: symbols,
//! definitions with suggestions, references, the dependency graph with hubs and entry
//! points, complexity, TODOs, structure; and the index following edits, renames and
//! deletes while a server runs.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

fn fixture() -> Ws {
    let ws = Ws::new();
    ws.write(
        "web/src/db.ts",
        "export class Db {\n  get(id: string) {\n    return id;\n  }\n}\n",
    );
    for name in ["a", "b", "c", "d", "e", "f"] {
        ws.write(
            &format!("web/src/{name}.ts"),
            &format!("import {{ Db }} from './db';\nexport const {name} = new Db();\n"),
        );
    }
    ws.write(
        "web/src/index.ts",
        "import { a } from './a';\n// TODO: wire the rest\nexport function main(): void {\n  if (a) {\n    for (const x of [1, 2]) {\n      console.log(x);\n    }\n  }\n}\n",
    );
    ws.write(
        "py/app/models.py",
        "class User:\n    \"\"\"A user.\"\"\"\n    def __init__(self, name):\n        self.name = name\n\n    async def save(self):\n        pass  # FIXME: persist\n",
    );
    ws.write("py/app/__init__.py", "");
    ws.write(
        "py/app/views.py",
        "from .models import User\n\ndef show(user: User) -> str:\n    return user.name\n",
    );
    ws.write(
        "rs/src/lib.rs",
        "mod net;\n/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    );
    ws.write(
        "rs/src/net.rs",
        "use crate::add;\n/* HACK: fixed port */\npub struct Conn {\n    port: u16,\n}\n",
    );
    ws.write("notes.txt", "not code\n");
    rest_past_the_racy_tick();
    ws
}

/// `ultra -c TOOL -a ARGS --json`: the reply.
/// A file read within a clock tick of its change is read again by the next walk (its stamp
/// could hide a second write): tests that count what a run parsed let the tree rest first.
fn rest_past_the_racy_tick() {
    std::thread::sleep(std::time::Duration::from_millis(40));
}

fn call(ws: &Ws, cmd: &str, args: Value) -> Value {
    let out = ws.cli(&["-c", cmd, "-a", &args.to_string(), "--json"]);
    out.json()[0].clone()
}

fn data(ws: &Ws, cmd: &str, args: Value) -> Value {
    let v = call(ws, cmd, args);
    assert_eq!(v["success"], true, "{cmd}: {v}");
    v["data"].clone()
}

#[test]
fn symbols_definitions_and_references() {
    let ws = fixture();
    let d = data(&ws, "code.findDefinition", json!({"symbol": "User"}));
    assert_eq!(d["definitions"][0]["path"], "py/app/models.py", "{d}");
    assert_eq!(d["definitions"][0]["type"], "class");
    assert_eq!(d["index"]["state"], "ready");
    assert!(
        d["text"]
            .as_str()
            .unwrap()
            .contains("py/app/models.py:1 (class)"),
        "{d}"
    );

    let d = data(&ws, "code.findDefinition", json!({"symbol": "User.save"}));
    assert_eq!(d["definitions"][0]["line"], 6, "{d}");

    let v = call(&ws, "code.findDefinition", json!({"symbol": "Usr"}));
    assert_eq!(v["error"]["code"], "SYMBOL_NOT_FOUND", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Did you mean?"),
        "{v}"
    );
    assert_eq!(
        v["error"]["details"]["suggestions"][0]["name"], "User",
        "{v}"
    );

    let d = data(
        &ws,
        "code.findReferences",
        json!({"symbol": "Db", "path": "web"}),
    );
    assert_eq!(d["totalReferences"], 13, "{d}");
    let defs: Vec<&Value> = d["references"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["isDefinition"] == true)
        .collect();
    assert_eq!(defs.len(), 1);
    assert_eq!(defs[0]["path"], "web/src/db.ts");

    let d = data(
        &ws,
        "code.getFunction",
        json!({"path": "rs/src/lib.rs", "name": "add"}),
    );
    assert_eq!(d["params"], json!(["a: i32", "b: i32"]), "{d}");
    assert_eq!(d["returnType"], "i32");
    assert_eq!(d["isExported"], true);
    assert_eq!(d["doc"], "Adds.");
    assert!(
        d["code"].as_str().unwrap().contains("     4\t    a + b"),
        "{d}"
    );

    let v = call(
        &ws,
        "code.getFunction",
        json!({"path": "py/app/models.py", "name": "delete"}),
    );
    assert_eq!(v["error"]["code"], "SYMBOL_NOT_FOUND");
    assert!(
        v["error"]["details"]["available"]
            .as_array()
            .unwrap()
            .contains(&json!("User.save")),
        "{v}"
    );
    let d = data(
        &ws,
        "code.getClass",
        json!({"path": "py/app/models.py", "name": "User"}),
    );
    assert_eq!(d["methods"][1]["name"], "save", "{d}");
    assert_eq!(d["methods"][1]["isAsync"], true);

    // Outside the root is refused.
    let v = call(&ws, "code.getLines", json!({"path": "../../etc/passwd"}));
    assert_eq!(v["error"]["code"], "PATH_OUTSIDE_WORKSPACE", "{v}");
}

#[test]
fn dependency_graph_complexity_todos_structure() {
    let ws = fixture();
    let d = data(&ws, "code.getDependents", json!({"path": "web/src/db.ts"}));
    assert_eq!(d["isHub"], true, "{d}");
    assert_eq!(d["totalDependents"], 6);
    assert!(
        d["text"]
            .as_str()
            .unwrap()
            .contains("Warning: This is a hub file. Changes may impact 6 other files.")
    );

    let d = data(&ws, "code.getDependencies", json!({"path": "web/src/a.ts"}));
    assert_eq!(d["dependencies"][0]["path"], "web/src/db.ts", "{d}");
    assert_eq!(d["dependencies"][0]["isHub"], true);
    let d = data(
        &ws,
        "code.getDependencies",
        json!({"path": "web/src/index.ts"}),
    );
    assert_eq!(d["dependencies"][0]["path"], "web/src/a.ts");
    let d = data(
        &ws,
        "code.getDependencies",
        json!({"path": "py/app/views.py"}),
    );
    assert_eq!(d["dependencies"][0]["path"], "py/app/models.py", "{d}");
    let d = data(
        &ws,
        "code.getDependencies",
        json!({"path": "rs/src/lib.rs"}),
    );
    assert_eq!(d["dependencies"][0]["path"], "rs/src/net.rs", "{d}");
    assert_eq!(
        data(
            &ws,
            "code.getDependents",
            json!({"path": "web/src/index.ts"})
        )["totalDependents"],
        0
    );

    let d = data(
        &ws,
        "code.getComplexity",
        json!({"path": "web", "limit": 1}),
    );
    assert_eq!(d["files"][0]["path"], "web/src/index.ts", "{d}");
    assert_eq!(d["files"][0]["cyclomaticComplexity"], 3);
    assert_eq!(d["summary"]["totalFiles"], 8);

    let d = data(&ws, "code.getTodos", json!({}));
    let kinds: Vec<&str> = d["todos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["FIXME", "HACK", "TODO"], "{d}");
    assert_eq!(d["summary"]["byType"]["TODO"], 1);
    let d = data(&ws, "code.getTodos", json!({"path": "py", "type": "fixme"}));
    assert_eq!(d["todos"][0]["text"], "persist", "{d}");
    // Paged: the summary counts everything, the page says where to go on.
    let d = data(&ws, "code.getTodos", json!({"limit": 1}));
    assert_eq!(
        (d["todos"].as_array().unwrap().len(), &d["nextCursor"]),
        (1, &json!(1)),
        "{d}"
    );
    assert_eq!(d["summary"]["total"], 3);
    let d = data(&ws, "code.getTodos", json!({"limit": 5, "cursor": 1}));
    assert_eq!(d["todos"][0]["type"], "HACK", "{d}");
    assert!(d["nextCursor"].is_null());

    let d = data(&ws, "code.getStructure", json!({"path": "rs"}));
    assert_eq!(
        d["text"],
        "rs/\n└── 📁 src/\n    ├── 📄 lib.rs\n    └── 📄 net.rs\n\nStats: 1 directories, 2 files\n"
    );
}

#[test]
fn the_index_follows_edits_renames_and_deletes() {
    let ws = fixture();
    let server = ws.serve();
    let mut c = ws.agent("bot");
    let d = c.ok("code.findDefinition", json!({"symbol": "add"}));
    assert_eq!(d["definitions"][0]["path"], "rs/src/lib.rs");

    // A change on disk.
    ws.write(
        "rs/src/lib.rs",
        "mod net;\npub fn plus(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    );
    // The server learns of disk changes from the file watcher, within moments.
    common::wait_until("the watcher to report the edit", || {
        c.call("code.findDefinition", json!({"symbol": "plus"}))
            .get("result")
            .is_some()
    });
    let e = c.err("code.findDefinition", json!({"symbol": "add"}));
    assert_eq!(e["data"]["code"], "SYMBOL_NOT_FOUND", "{e}");
    assert_eq!(
        c.ok("code.findDefinition", json!({"symbol": "plus"}))["definitions"][0]["line"],
        2
    );

    // An unsaved buffer edit is what the agent sees.
    c.ok("ultra.openFile", json!({"path": "rs/src/net.rs"}));
    c.ok(
        "ultra.edit",
        json!({"path": "rs/src/net.rs", "range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 0}}, "text": "pub fn dial() {}\n"}),
    );
    let d = c.ok("code.findDefinition", json!({"symbol": "dial"}));
    assert_eq!(d["definitions"][0]["path"], "rs/src/net.rs", "{d}");

    // Rename and delete.
    std::fs::rename(ws.path("py/app/views.py"), ws.path("py/app/pages.py")).unwrap();
    common::wait_until("the rename", || {
        c.ok("code.findDefinition", json!({"symbol": "show"}))["definitions"][0]["path"]
            == "py/app/pages.py"
    });
    let d = c.ok("code.findDefinition", json!({"symbol": "show"}));
    assert_eq!(d["definitions"].as_array().unwrap().len(), 1, "{d}");
    std::fs::remove_file(ws.path("web/src/f.ts")).unwrap();
    common::wait_until("the delete", || {
        c.ok("code.getDependents", json!({"path": "web/src/db.ts"}))["totalDependents"] == 5
    });
    let d = c.ok("code.getDependents", json!({"path": "web/src/db.ts"}));
    assert_eq!(d["isHub"], false, "{d}");
    // A new directory of files moved in at once.
    std::fs::create_dir_all(ws.path("tmp-new/pkg")).unwrap();
    std::fs::write(
        ws.path("tmp-new/pkg/late.py"),
        "def arrived_late():\n    pass\n",
    )
    .unwrap();
    std::fs::rename(ws.path("tmp-new/pkg"), ws.path("py/pkg")).unwrap();
    common::wait_until("the moved-in directory", || {
        c.call("code.findDefinition", json!({"symbol": "arrived_late"}))
            .get("result")
            .is_some()
    });
    // All of this came through the file watcher, not a walk per query.
    assert!(
        !server.stderr().contains("no file watching"),
        "{}",
        server.stderr()
    );
}

/// The index persists between runs: a second run on an unchanged tree parses nothing, a
/// changed file is the only one parsed again, and a deleted one is forgotten.
#[test]
fn the_index_persists_across_runs() {
    let ws = fixture();
    let first = data(&ws, "code.findDefinition", json!({"symbol": "User"}));
    assert_eq!(first["index"]["refreshed"], 13, "{first}");
    let second = data(&ws, "code.findDefinition", json!({"symbol": "User"}));
    assert_eq!(second["index"]["refreshed"], 0, "{second}");
    assert_eq!(second["definitions"], first["definitions"]);
    ws.write("py/app/views.py", "def show2(user):\n    return user\n");
    rest_past_the_racy_tick();
    let d = data(&ws, "code.findDefinition", json!({"symbol": "show2"}));
    assert_eq!(d["index"]["refreshed"], 1, "{d}");
    std::fs::remove_file(ws.path("rs/src/net.rs")).unwrap();
    let v = call(&ws, "code.findDefinition", json!({"symbol": "Conn"}));
    assert_eq!(v["error"]["code"], "SYMBOL_NOT_FOUND", "{v}");
    assert_eq!(
        data(&ws, "code.findDefinition", json!({"symbol": "add"}))["index"]["refreshed"],
        0
    );
}

/// `grep code QUERY` in the shell is a ranked symbol search over the index, from
/// `ultra sh` and from the `shell` tool alike.
#[test]
fn grep_code_ranks_symbols() {
    let ws = fixture();
    let out = ws.cli(&["sh", "grep code user; grep code db get"]);
    let text = out.ok();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("py/app/models.py:1  class User"),
        "{text}"
    );
    assert!(text.contains("web/src/db.ts:2  method Db.get"), "{text}");
    let d = data(
        &ws,
        "ultra.shell.run",
        json!({"script": "grep code show | head -1"}),
    );
    assert_eq!(
        d["stdout"], "py/app/views.py:3  function show  def show(user: User) -> str\n",
        "{d}"
    );
    let d = data(
        &ws,
        "ultra.shell.run",
        json!({"script": "grep code zzzzqqq"}),
    );
    assert_eq!(d["exitCode"], 1);
    assert!(
        d["stderr"].as_str().unwrap().contains("no symbol matches"),
        "{d}"
    );
}

/// A reindex announces its progress and readiness to subscribers; a server warms the index
/// up by itself, and an answer meanwhile is right for the file asked about, whatever the
/// rest of the tree's state.
#[test]
fn progress_events_and_warm_up() {
    let ws = fixture();
    for i in 0..400 {
        ws.write(
            &format!("gen/m{i:03}.ts"),
            &format!("export function f{i}() {{ return {i}; }}\n"),
        );
    }
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    // The warm-up may still be running: the file asked about is indexed first.
    let d = c.ok(
        "code.getFunction",
        json!({"path": "gen/m399.ts", "name": "f399"}),
    );
    assert_eq!(d["lineStart"], 1, "{d}");
    assert!(
        ["ready", "warming"].contains(&d["index"]["state"].as_str().unwrap()),
        "{d}"
    );

    let mut sub = ws.agent("watcher");
    sub.ok("subscribe", json!({"events": ["index.*"]}));
    let r = c.ok("code.reindex", json!({"cold": true}));
    assert_eq!(r["parsed"], 413, "{r}");
    assert_eq!(r["index"]["state"], "ready");
    let progress = sub.wait_event(|e| e["method"] == "index.progress");
    assert_eq!(progress["params"]["data"]["total"], 413, "{progress}");
    let ready = sub.wait_event(|e| e["method"] == "index.ready");
    assert_eq!(ready["params"]["data"]["files"], 413, "{ready}");
}

/// A real `redis-server` on a free port, stopped when dropped.
struct RedisServer {
    child: std::process::Child,
    port: u16,
}

impl RedisServer {
    fn start() -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server is installed (.ci/run installs it)");
        common::wait_until("redis-server to listen", || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        RedisServer { child, port }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// With `index.backend: redis`, servers share one index: a process with its own state
/// directory (another machine, say) finds everything indexed and parses nothing; when
/// Redis is down the index still answers, from memory, and says why it has no store.
#[test]
fn redis_backend_shares_the_index() {
    let redis = RedisServer::start();
    let ws = fixture();
    ws.config(json!({"index": {
        "backend": "redis",
        "redisUrl": format!("redis://127.0.0.1:{}/", redis.port),
        "namespace": "ultra-test"
    }}));
    let first = data(&ws, "code.findDefinition", json!({"symbol": "User"}));
    assert_eq!(first["index"]["refreshed"], 13, "{first}");
    assert!(first["index"].get("storeError").is_none(), "{first}");
    let other_state = tempfile::tempdir().unwrap();
    let out = ws.cli_with(
        &[
            "-c",
            "code.findDefinition",
            "-a",
            r#"{"symbol": "User"}"#,
            "--json",
        ],
        |c| {
            c.env("XDG_STATE_HOME", other_state.path());
        },
    );
    let second = &out.json()[0]["data"];
    assert_eq!(second["index"]["refreshed"], 0, "{second}");
    assert_eq!(second["definitions"], first["definitions"]);
    // Loaded from Redis without functions and classes, which it fetches when asked.
    let out = ws.cli_with(
        &[
            "-c",
            "code.getClass",
            "-a",
            r#"{"path": "py/app/models.py", "name": "User"}"#,
            "--json",
        ],
        |c| {
            c.env("XDG_STATE_HOME", other_state.path());
        },
    );
    let class = &out.json()[0]["data"];
    assert_eq!(class["doc"], "A user.", "{class}");
    assert_eq!(
        class["methods"].as_array().map(Vec::len),
        Some(2),
        "{class}"
    );
    // A warm `ultra index` checks the shared stamps: after a complete index, its totals
    // are kept in Redis and printed again without loading anything.
    let redis_cli = |args: &[&str]| {
        let out = std::process::Command::new("redis-cli")
            .args(["-p", &redis.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli is installed with redis-server");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let index = || ws.cli(&["index", "--json-summary"]).json().pop().unwrap();
    let full = index();
    assert_eq!(redis_cli(&["HLEN", "ultra-test:stamps"]), "13");
    let kept = redis_cli(&["GET", "ultra-test:totals"]);
    assert!(kept.contains("\"files\":13"), "{kept}");
    let warm = index();
    assert_eq!(warm["parsed"], 0, "{warm}");
    for k in [
        "files",
        "definitions",
        "references",
        "imports",
        "dependencyEdges",
    ] {
        assert_eq!(warm[k], full[k], "{k}: {warm} against {full}");
    }
    // A cold reindex empties the shared entries and writes them again.
    let r = data(&ws, "code.reindex", json!({"cold": true}));
    assert_eq!(r["parsed"], 13, "{r}");
    assert_eq!(
        redis_cli(&["GET", "ultra-test:totals"]),
        "",
        "a save drops the totals"
    );

    drop(redis);
    let d = data(&ws, "code.findDefinition", json!({"symbol": "User"}));
    assert_eq!(d["definitions"], first["definitions"]);
    assert!(
        d["index"]["storeError"]
            .as_str()
            .unwrap()
            .contains("index store"),
        "{d}"
    );
}

#[test]
fn definitions_page_and_unindexed_files_come_back_whole() {
    let ws = Ws::new();
    for i in 0..7 {
        ws.write(&format!("src/m{i}.rs"), "/// Runs.\npub fn run() {}\n");
    }
    ws.write("tool.rb", "def run\n  puts 1\nend\n");
    let first = data(&ws, "find_definition", json!({"symbol": "run", "limit": 3}));
    assert_eq!(first["total"], 7, "{first}");
    assert_eq!(first["nextCursor"], 3, "{first}");
    let paths: Vec<&str> = first["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["src/m0.rs", "src/m1.rs", "src/m2.rs"]);
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .contains("[4 more: pass cursor 3]"),
        "{first}"
    );
    let last = data(
        &ws,
        "find_definition",
        json!({"symbol": "run", "limit": 3, "cursor": 6}),
    );
    assert_eq!(last["definitions"][0]["path"], "src/m6.rs", "{last}");
    assert_eq!(
        last["definitions"][0]["context"][1], "2: pub fn run() {}",
        "{last}"
    );
    assert!(last["nextCursor"].is_null(), "{last}");

    // Seed 001: a file that is not indexed falls back to the whole file.
    let f = data(
        &ws,
        "get_function",
        json!({"path": "tool.rb", "name": "run"}),
    );
    assert_eq!(
        f["code"], "     1\tdef run\n     2\t  puts 1\n     3\tend\n",
        "{f}"
    );
    assert!(
        f["fallback"].as_str().unwrap().contains("not indexed"),
        "{f}"
    );
    // An indexed file still answers with the function, or lists what there is.
    let f = data(
        &ws,
        "get_function",
        json!({"path": "src/m0.rs", "name": "run"}),
    );
    assert!(f["fallback"].is_null(), "{f}");
    assert_eq!(f["lineStart"], 2, "{f}");
    let v = call(
        &ws,
        "get_function",
        json!({"path": "missing.rb", "name": "run"}),
    );
    assert_eq!(v["success"], false, "{v}");
}

#[test]
fn index_command_reports_progress_when_piped_and_counts_only_parsed_files() {
    let ws = Ws::new();
    ws.write("src/a.rs", "fn a() {}\n");
    ws.write("src/b.rs", "fn b() {\n    a()\n}\n");
    ws.write("c.py", "def c():\n    pass\n");
    // Larger than the index reads: counted as skipped, not parsed.
    ws.write("big.py", &"x = 1\n".repeat(800_000));
    let out = ws.cli(&["index", "--cold"]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    // stderr is a pipe here: a line saying how much there is, no carriage returns.
    assert!(
        out.stderr().contains("ultra index: 4 files to index"),
        "{}",
        out.stderr()
    );
    assert!(!out.stderr().contains('\r'), "{:?}", out.stderr());
    assert!(
        out.stdout()
            .starts_with("indexed 3 files (3 parsed now, 1 skipped)"),
        "{}",
        out.stdout()
    );
    let out = ws.cli(&["index", "--cold", "--json-summary"]);
    let v: Value = serde_json::from_str(out.stdout().trim()).unwrap();
    assert_eq!(
        (
            v["files"].as_u64(),
            v["parsed"].as_u64(),
            v["skipped"].as_u64()
        ),
        (Some(3), Some(3), Some(1)),
        "{v}"
    );
    assert_eq!(v["definitions"], 3, "{v}");
}

/// Each of `names` is defined exactly once in the index.
fn assert_indexed(ws: &Ws, names: &[&str]) {
    for name in names {
        let d = data(ws, "code.findDefinition", json!({ "symbol": name }));
        let count = d["definitions"].as_array().map(Vec::len);
        assert_eq!(count, Some(1), "{name}: {d}");
    }
}

/// None of `names` is in the index.
fn assert_not_indexed(ws: &Ws, names: &[&str]) {
    for name in names {
        let v = call(ws, "code.findDefinition", json!({ "symbol": name }));
        assert_eq!(v["error"]["code"], "SYMBOL_NOT_FOUND", "{name}: {v}");
    }
}

/// Build output is skipped at the top of the workspace only; a directory named `target`,
/// `build` or `dist` deeper down is indexed unless a `.gitignore` says otherwise, and
/// dependencies (`node_modules`) are skipped at any depth. The same rules hold for a batch
/// index and for a file the watcher reports.
#[test]
fn skipped_directories_follow_gitignore_not_names_below_the_top() {
    let ws = Ws::new();
    ws.write("cc/src/target/gen.rs", "pub fn nested_target_fn() {}\n");
    ws.write("lib/build/tool.py", "def nested_build_tool():\n    pass\n");
    ws.write(
        "web/dist/util.ts",
        "export function nestedDistFn(): void {}\n",
    );
    ws.write("target/debug/out.rs", "pub fn built_artifact() {}\n");
    ws.write("web/node_modules/dep/index.js", "function depFn() {}\n");
    ws.write(".gitignore", "lib/generated/\n");
    ws.write("lib/generated/g.py", "def ignored_gen():\n    pass\n");
    assert_indexed(
        &ws,
        &["nested_target_fn", "nested_build_tool", "nestedDistFn"],
    );
    assert_not_indexed(&ws, &["built_artifact", "depFn", "ignored_gen"]);

    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("code.findDefinition", json!({"symbol": "nestedDistFn"}));
    ws.write("app/build/late.rs", "pub fn late_nested_fn() {}\n");
    ws.write("build/late_top.rs", "pub fn late_top_fn() {}\n");
    common::wait_until("the watcher to report the new file", || {
        c.call("code.findDefinition", json!({"symbol": "late_nested_fn"}))
            .get("result")
            .is_some()
    });
    let e = c.err("code.findDefinition", json!({"symbol": "late_top_fn"}));
    assert_eq!(e["data"]["code"], "SYMBOL_NOT_FOUND", "{e}");
}

/// `index.exclude` replaces the default list: with `["gen/"]`, top-level `target/` is
/// indexed and every `gen/` is not; a pattern that does not parse is a configuration error
/// naming the key.
#[test]
fn index_exclude_is_configurable() {
    let ws = Ws::new();
    ws.write("target/out.rs", "pub fn top_target_fn() {}\n");
    ws.write("src/gen/made.rs", "pub fn generated_fn() {}\n");
    ws.write("src/lib.rs", "pub fn kept_fn() {}\n");
    ws.config(json!({"index": {"exclude": ["gen/"]}}));
    assert_indexed(&ws, &["top_target_fn", "kept_fn"]);
    assert_not_indexed(&ws, &["generated_fn"]);

    ws.config(json!({"index": {"exclude": ["src/[z-a]/"]}}));
    let out = ws.cli(&["index"]);
    assert_eq!(out.code(), 2, "{}", out.stdout());
    assert!(
        out.stderr().contains("index.exclude[0]"),
        "{}",
        out.stderr()
    );
}

/// Absolute Python imports resolve the way Python finds packages: from the directory
/// above the top `__init__.py` of a package wherever it sits (an unpacked sdist), and from
/// a project's directory or `src/` (next to `pyproject.toml`) for plain modules. The graph
/// follows import changes while a server runs, and a body edit leaves it as it was.
#[test]
fn python_imports_resolve_from_package_roots() {
    let ws = Ws::new();
    let dj = "python/Django-5.2.8";
    ws.write(
        &format!("{dj}/pyproject.toml"),
        "[project]\nname = \"Django\"\n",
    );
    ws.write(&format!("{dj}/django/__init__.py"), "VERSION = (5, 2)\n");
    ws.write(&format!("{dj}/django/db/__init__.py"), "");
    ws.write(
        &format!("{dj}/django/db/models/__init__.py"),
        "from django.db.models.base import Model\n",
    );
    ws.write(
        &format!("{dj}/django/db/models/base.py"),
        "class Model:\n    pass\n",
    );
    ws.write(&format!("{dj}/tests/admin_views/__init__.py"), "");
    ws.write(
        &format!("{dj}/tests/admin_views/models.py"),
        "from django.db import models\n\nclass Book(models.Model):\n    pass\n",
    );
    ws.write(
        &format!("{dj}/tests/runtests.py"),
        "import django\nfrom django.db.models import Model\n",
    );
    ws.write(
        "tools/cli/pyproject.toml",
        "[project]\nname = \"clitool\"\n",
    );
    ws.write("tools/cli/src/clitool.py", "def helper():\n    pass\n");
    ws.write("scripts/run.py", "import clitool\n\nclitool.helper()\n");

    let dependents = |c: &mut common::Conn, path: &str| -> Vec<String> {
        let d = c.ok("code.getDependents", json!({ "path": path }));
        d["dependents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["path"].as_str().unwrap().to_string())
            .collect()
    };
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let models = format!("{dj}/django/db/models/__init__.py");
    assert_eq!(
        dependents(&mut c, &models),
        [
            format!("{dj}/tests/admin_views/models.py"),
            format!("{dj}/tests/runtests.py")
        ]
    );
    assert_eq!(
        dependents(&mut c, &format!("{dj}/django/db/models/base.py")),
        std::slice::from_ref(&models)
    );
    assert_eq!(
        dependents(&mut c, &format!("{dj}/django/__init__.py")),
        [format!("{dj}/tests/runtests.py")]
    );
    assert_eq!(
        dependents(&mut c, "tools/cli/src/clitool.py"),
        ["scripts/run.py"]
    );

    // A body edit keeps the graph; an import edit and a new importer change it.
    ws.write(
        &format!("{dj}/tests/admin_views/models.py"),
        "from django.db import models\n\nclass Book(models.Model):\n    title = 1\n",
    );
    ws.write(&format!("{dj}/tests/runtests.py"), "import django\n");
    ws.write(
        &format!("{dj}/django/contrib/__init__.py"),
        "from django.db.models import Model\n",
    );
    common::wait_until("the graph to follow the import edits", || {
        dependents(&mut c, &models)
            == [
                format!("{dj}/django/contrib/__init__.py"),
                format!("{dj}/tests/admin_views/models.py"),
            ]
    });
}

/// A query sent the moment a server with no index on disk is up never waits for the cold
/// index: it answers at once, from what is indexed so far, marked `warming` (a miss says
/// to retry); `code.reindex` is the call that waits, and answers `ready`.
#[test]
fn queries_never_wait_for_the_cold_index() {
    let ws = Ws::new();
    let body: String = (0..40)
        .map(|i| {
            format!("export function helper{i}(x: number): number {{\n  return x + {i};\n}}\n")
        })
        .collect();
    for i in 0..2500 {
        ws.write(
            &format!("src/m{i:04}.ts"),
            &format!("{body}export function last{i}(): void {{}}\n"),
        );
    }
    let started = std::time::Instant::now();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let asked = std::time::Instant::now();
    let r = c.call("code.findDefinition", json!({"symbol": "last2499"}));
    let first_answer = asked.elapsed();
    let state = match (&r.get("result"), &r.get("error")) {
        (Some(res), _) => res["index"]["state"].clone(),
        (_, Some(e)) => {
            assert_eq!(e["data"]["code"], "SYMBOL_NOT_FOUND", "{e}");
            e["data"]["details"]["index"]["state"].clone()
        }
        _ => panic!("{r}"),
    };
    let ready = c.ok_within(
        std::time::Duration::from_secs(120),
        "code.reindex",
        json!({}),
    );
    assert_eq!(ready["index"]["state"], "ready", "{ready}");
    let cold = started.elapsed();
    assert!(
        cold.as_secs_f64() > 1.0,
        "the cold index took only {cold:?}: too quick to tell"
    );
    assert!(
        first_answer < cold / 4,
        "the first query took {first_answer:?} of a {cold:?} cold index"
    );
    assert_eq!(state, "warming", "{r}");
    let d = c.ok("code.findDefinition", json!({"symbol": "last2499"}));
    assert_eq!(d["definitions"][0]["path"], "src/m2499.ts", "{d}");

    // A restart on the stored index: the first query waits for the stored records (not
    // for any parsing) and finds what they hold.
    drop(c);
    drop(_server);
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let d = c.ok("code.findDefinition", json!({"symbol": "last1234"}));
    assert_eq!(d["definitions"][0]["path"], "src/m1234.ts", "{d}");
}

/// Functions and classes stay in the store rather than in memory: after a restart on the
/// stored index, and after a change the server indexed and stored, every answer that
/// needs them (get_function, get_class, hover, `grep code`) still has them whole; so does
/// a file whose stored copy is gone (it is indexed again from the disk).
#[test]
fn details_left_in_the_store_come_back_when_asked() {
    let ws = fixture();
    // Index and store, then answer from a fresh process that loads the store.
    data(&ws, "code.reindex", json!({}));
    let check = |c: &mut common::Conn| {
        let f = c.ok(
            "code.getFunction",
            json!({"path": "rs/src/lib.rs", "name": "add"}),
        );
        assert_eq!(f["params"], json!(["a: i32", "b: i32"]), "{f}");
        assert!(f["code"].as_str().unwrap().contains("a + b"), "{f}");
        let k = c.ok(
            "code.getClass",
            json!({"path": "py/app/models.py", "name": "User"}),
        );
        assert_eq!(k["doc"], "A user.", "{k}");
        let h = c.ok(
            "state.getHover",
            json!({"path": "rs/src/net.rs", "position": {"line": 0, "character": 12}}),
        );
        assert!(
            h["content"]
                .as_str()
                .unwrap()
                .contains("pub fn add(a: i32, b: i32) -> i32"),
            "{h}"
        );
    };
    let server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("code.reindex", json!({}));
    check(&mut c);
    let out = c.ok("shell", json!({"script": "grep code add"}));
    assert!(
        out["stdout"]
            .as_str()
            .unwrap()
            .contains("add(a: i32, b: i32)"),
        "{out}"
    );
    // A change the watcher reports is indexed, stored, and its details dropped again.
    ws.write(
        "rs/src/lib.rs",
        "mod net;\n/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n/// Subtracts.\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    );
    common::wait_until("the watcher to report the edit", || {
        c.call("code.findDefinition", json!({"symbol": "sub"}))
            .get("result")
            .is_some()
    });
    let f = c.ok(
        "code.getFunction",
        json!({"path": "rs/src/lib.rs", "name": "sub"}),
    );
    assert_eq!(f["doc"], "Subtracts.", "{f}");
    check(&mut c);
    // The same content written again is read again (a new stamp): the store must keep
    // the whole record, not the resident one that left its details there.
    for _ in 0..2 {
        let same = ws.read("rs/src/lib.rs");
        ws.write("rs/src/lib.rs", &same);
        c.ok("code.reindex", json!({}));
        let f = c.ok(
            "code.getFunction",
            json!({"path": "rs/src/lib.rs", "name": "sub"}),
        );
        assert_eq!(f["doc"], "Subtracts.", "{f}");
    }
    drop(c);
    drop(server);
    // Without a store file the details come from the disk.
    let state = ws.base().join("state");
    for e in walk(&state) {
        if e.extension().is_some_and(|x| x == "redb") {
            std::fs::remove_file(&e).unwrap();
        }
    }
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("code.reindex", json!({}));
    check(&mut c);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// `find_definition` narrows to a path: definitions elsewhere are left out, and a miss
/// there says where it looked.
#[test]
fn find_definition_narrows_to_a_path() {
    let ws = fixture();
    let d = data(
        &ws,
        "code.findDefinition",
        json!({"symbol": "Db", "path": "web"}),
    );
    assert_eq!(d["total"], 1, "{d}");
    assert_eq!(d["definitions"][0]["path"], "web/src/db.ts");
    let v = call(
        &ws,
        "code.findDefinition",
        json!({"symbol": "Db", "path": "py"}),
    );
    assert_eq!(v["error"]["code"], "SYMBOL_NOT_FOUND", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not found under py"),
        "{v}"
    );
    let v = call(
        &ws,
        "code.findDefinition",
        json!({"symbol": "Db", "path": "../outside"}),
    );
    assert!(v["error"]["code"].is_string(), "{v}");
}

/// An edit's reindex is stored without waiting for the disk (it is on the path of the
/// query that asked for it). A server killed right after loses nothing: the store it
/// leaves is an older consistent one, and the restart indexes the file again.
#[test]
fn an_edit_stored_lazily_survives_a_kill() {
    let ws = fixture();
    let mut server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("code.reindex", json!({}));
    let rel = walk(&ws.root)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "rs"))
        .expect("a Rust file in the fixture");
    for i in 0..3 {
        let mut text = std::fs::read_to_string(&rel).unwrap();
        text.push_str(&format!("\npub fn survivor_probe_{i}() {{}}\n"));
        std::fs::write(&rel, text).unwrap();
        common::wait_until("the edit to be indexed", || {
            c.call(
                "code.findDefinition",
                json!({"symbol": format!("survivor_probe_{i}")}),
            )
            .get("result")
            .is_some()
        });
    }
    drop(c);
    server.kill9();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    for i in 0..3 {
        let d = c.ok(
            "code.findDefinition",
            json!({"symbol": format!("survivor_probe_{i}")}),
        );
        assert_eq!(d["definitions"].as_array().map(Vec::len), Some(1), "{d}");
    }
}

/// A big index is saved without waiting for the disk batch by batch, then made durable
/// once it is complete: a server killed right after indexing leaves a whole store, and
/// the next start parses nothing again.
#[test]
fn a_finished_index_survives_a_kill() {
    let ws = Ws::new();
    for i in 0..260 {
        ws.write(
            &format!("src/m{i}.rs"),
            &format!("pub fn item_{i}() -> u32 {{\n    {i}\n}}\n"),
        );
    }
    let mut server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("code.reindex", json!({}));
    let d = c.ok("code.findDefinition", json!({"symbol": "item_259"}));
    assert_eq!(d["definitions"].as_array().map(Vec::len), Some(1), "{d}");
    drop(c);
    server.kill9();
    let out = ws.cli(&["index", "--json-summary"]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    let v: Value = serde_json::from_str(out.stdout().trim()).unwrap();
    assert_eq!(
        (v["files"].as_u64(), v["parsed"].as_u64()),
        (Some(260), Some(0)),
        "{v}"
    );
}
