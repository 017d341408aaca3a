//! Semantic navigation and rename through the binary (issue 22), against real pyright: on
//! a fixture with a shadowing local and a same-named function in another module, the
//! language server's references are exactly the symbol's (`precision: semantic`) where the
//! index's are every occurrence of the name; definitions and hover come from it too; a
//! rename lands in every file that uses the symbol and in no other, atomically, and undoes
//! in one step; without a server the queries say so and answer from the index, and a
//! rename is refused.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

const A: &str = "def parse(s: str) -> int:\n    return int(s)\n";
const B: &str = "def parse(s: str) -> str:\n    return s\n";
const MAIN: &str = "from pkg.a import parse\nfrom pkg import b\n\nx = parse(\"1\")\ny = b.parse(\"2\")\n\n\ndef inner():\n    parse = 3\n    return parse\n";

fn fixture(python: Value) -> Ws {
    let ws = Ws::new();
    ws.write("pkg/__init__.py", "");
    ws.write("pkg/a.py", A);
    ws.write("pkg/b.py", B);
    ws.write("main.py", MAIN);
    ws.config(json!({"lsp": {"python": python, "typescript": {"enabled": false}}}));
    ws
}

fn with_pyright() -> Ws {
    fixture(json!({"command": common::pyright().to_string_lossy(), "args": ["--stdio"]}))
}

/// (path, 0-based line) of each location.
fn places(v: &Value) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["path"].as_str().unwrap().to_string(),
                l["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn at(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

#[test]
fn references_definitions_and_hover_come_from_the_server() {
    let ws = with_pyright();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    // `parse` in `x = parse("1")`.
    let r = c.ok(
        "state.findReferences",
        json!({"path": "main.py", "position": at(3, 5)}),
    );
    assert_eq!(r["precision"], "semantic", "{r}");
    assert_eq!(r["languageServer"]["state"], "ready", "{r}");
    assert_eq!(
        places(&r["locations"]),
        [
            ("main.py".to_string(), 0),
            ("main.py".to_string(), 3),
            ("pkg/a.py".to_string(), 0)
        ],
        "{r}"
    );
    // The same by name and line through the seed 001 tool; without the line, by name.
    let by_line = c.ok(
        "code.findReferences",
        json!({"symbol": "parse", "path": "main.py", "line": 4, "contextLines": 0}),
    );
    assert_eq!(by_line["precision"], "semantic", "{by_line}");
    assert_eq!(by_line["totalReferences"], 3, "{by_line}");
    assert!(
        by_line["text"]
            .as_str()
            .unwrap()
            .contains("Precision: semantic"),
        "{by_line}"
    );
    let defs: Vec<bool> = by_line["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["isDefinition"].as_bool().unwrap())
        .collect();
    assert_eq!(defs.iter().filter(|d| **d).count(), 1, "{by_line}");
    let by_name = c.ok(
        "code.findReferences",
        json!({"symbol": "parse", "contextLines": 0}),
    );
    assert_eq!(by_name["precision"], "syntactic", "{by_name}");
    assert_eq!(by_name["totalReferences"], 7, "{by_name}");

    let d = c.ok(
        "state.goToDefinition",
        json!({"path": "main.py", "position": at(3, 5)}),
    );
    assert_eq!(d["precision"], "semantic", "{d}");
    assert_eq!(
        places(&d["locations"]),
        [("pkg/a.py".to_string(), 0)],
        "{d}"
    );
    // `b.parse` goes to the other module's.
    let d = c.ok(
        "state.goToDefinition",
        json!({"path": "main.py", "position": at(4, 7)}),
    );
    assert_eq!(
        places(&d["locations"]),
        [("pkg/b.py".to_string(), 0)],
        "{d}"
    );
    let h = c.ok(
        "state.getHover",
        json!({"path": "main.py", "position": at(3, 5)}),
    );
    assert_eq!(h["precision"], "semantic", "{h}");
    assert!(
        h["content"].as_str().unwrap().contains("(s: str) -> int"),
        "{h}"
    );
    // Who calls pkg/a.py's parse: main.py's module code, at line 3 only.
    let calls = c.ok(
        "state.getCallHierarchy",
        json!({"path": "pkg/a.py", "position": at(0, 5)}),
    );
    assert_eq!(calls["precision"], "semantic", "{calls}");
    let sites: Vec<(String, u64)> = calls["calls"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            let path = c["path"].as_str().unwrap().to_string();
            c["callSites"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |r| (path.clone(), r["start"]["line"].as_u64().unwrap()))
        })
        .collect();
    assert_eq!(sites, [("main.py".to_string(), 3)], "{calls}");
}

#[test]
fn a_rename_changes_every_use_and_nothing_else_in_one_undo() {
    let ws = with_pyright();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let dry = c.ok(
        "ultra.renameSymbol",
        json!({"path": "main.py", "symbol": "parse", "line": 4, "newName": "parse_int", "dryRun": true}),
    );
    assert_eq!(dry["applied"], false, "{dry}");
    assert_eq!(dry["totalEdits"], 3, "{dry}");
    assert_eq!(ws.read("main.py"), MAIN, "a dry run changes nothing");

    let r = c.ok(
        "ultra.renameSymbol",
        json!({"path": "main.py", "symbol": "parse", "line": 4, "newName": "parse_int"}),
    );
    assert_eq!(r["applied"], true, "{r}");
    assert_eq!(r["newDiagnostics"], json!([]), "{r}");
    assert_eq!(
        ws.read("pkg/a.py"),
        "def parse_int(s: str) -> int:\n    return int(s)\n"
    );
    assert_eq!(
        ws.read("main.py"),
        MAIN.replace("import parse\n", "import parse_int\n")
            .replace("x = parse(", "x = parse_int(")
    );
    assert_eq!(
        ws.read("pkg/b.py"),
        B,
        "the same-named function is another symbol"
    );
    // One undo step takes back both files.
    c.ok("ultra.undo", json!({"txnId": r["txnId"]}));
    let text = |c: &mut common::Conn, p: &str| {
        c.ok("ultra.getFileContent", json!({"path": p}))["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(text(&mut c, "pkg/a.py"), A);
    assert_eq!(text(&mut c, "main.py"), MAIN);

    // A name that is not there on that line, and a bad new name, change nothing.
    c.err_code(
        "ultra.renameSymbol",
        json!({"path": "main.py", "symbol": "parse", "line": 2, "newName": "p"}),
        "SYMBOL_NOT_FOUND",
    );
    c.err_code(
        "ultra.renameSymbol",
        json!({"path": "main.py", "symbol": "parse", "line": 4, "newName": "two words"}),
        "INVALID_ARGUMENTS",
    );
}

#[test]
fn without_a_server_the_index_answers_and_says_why() {
    let ws = fixture(json!({"command": "/nonexistent/pyright-langserver"}));
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let r = c.ok(
        "state.findReferences",
        json!({"path": "main.py", "position": at(3, 5)}),
    );
    assert_eq!(r["precision"], "syntactic", "{r}");
    assert_eq!(r["languageServer"]["state"], "unavailable", "{r}");
    // Every `parse`: the shadowing local and the other module's included.
    assert_eq!(r["locations"].as_array().unwrap().len(), 7, "{r}");
    let by_line = c.ok(
        "code.findReferences",
        json!({"symbol": "parse", "path": "main.py", "line": 4}),
    );
    assert_eq!(by_line["precision"], "syntactic", "{by_line}");
    assert_eq!(by_line["totalReferences"], 7, "{by_line}");
    let e = c.err_code(
        "ultra.renameSymbol",
        json!({"path": "main.py", "symbol": "parse", "line": 4, "newName": "p"}),
        "LANGUAGE_SERVER_UNAVAILABLE",
    );
    assert!(e.to_string().contains("/nonexistent"), "{e}");
    assert_eq!(ws.read("main.py"), MAIN);
}

fn with_typescript() -> Ws {
    let ws = Ws::new();
    ws.write("tsconfig.json", r#"{"compilerOptions": {"strict": true}}"#);
    ws.write(
        "src/util.ts",
        "export function double(n: number): number {\n  return 2 * n;\n}\n",
    );
    ws.write(
        "src/main.ts",
        "const x: number = double(2);\nexport { x };\n",
    );
    ws.write("src/extra.ts", "export const unused = 1;\n");
    ws.write(
        "src/shapes.ts",
        "export interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n  area(): number {\n    return 4;\n  }\n}\n\nexport class Circle implements Shape {\n  area(): number {\n    return 3;\n  }\n}\n",
    );
    ws.write(
        "src/tidy.ts",
        "import { double } from \"./util\";\nimport { unused } from \"./extra\";\n\nexport const y = double(1);\n",
    );
    ws.config(json!({"lsp": {
        "typescript": {"command": common::typescript_server().to_string_lossy(), "args": ["--stdio"]},
        "python": {"enabled": false}
    }}));
    ws
}

/// typescript-language-server publishes late, in parts and without versions, and not at
/// all when nothing changed: each edit's answer must be about its own text, and an edit
/// of a clean file must not wait for a publication that never comes.
#[test]
fn typescript_edits_answer_with_their_own_diagnostics() {
    let ws = with_typescript();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let d = c.ok("state.getDiagnostics", json!({"path": "src/util.ts"}));
    assert_eq!(d["languageServer"]["state"], "ready", "{d}");
    for round in 0..2 {
        // A clean file stays clean: the server is ready and nothing is new.
        let clean = c.ok(
            "ultra.applyEdits",
            json!({"files": [{"path": "src/util.ts", "edits": [{"old": "2 * n", "new": "n * 2"}]}]}),
        );
        assert_eq!(clean["languageServers"][0]["state"], "ready", "{clean}");
        assert_eq!(clean["newDiagnostics"], json!([]), "{clean}");
        c.ok(
            "ultra.applyEdits",
            json!({"files": [{"path": "src/util.ts", "edits": [{"old": "n * 2", "new": "2 * n"}]}]}),
        );
        // A type error comes back with the edit that made it, and only then.
        let broke = c.ok(
            "ultra.applyEdits",
            json!({"files": [{"path": "src/util.ts", "edits": [{"old": "return 2 * n;", "new": "return \"two\";"}]}]}),
        );
        // (With a hint that `n` is no longer read.)
        let errors = |v: &Value, key: &str| -> Vec<(String, u64)> {
            v[key]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["severity"] == "error")
                .map(|d| {
                    let code = d["code"].as_str().unwrap().to_string();
                    (code, d["range"]["start"]["line"].as_u64().unwrap())
                })
                .collect()
        };
        assert_eq!(
            errors(&broke, "newDiagnostics"),
            [("2322".to_string(), 1)],
            "round {round}: {broke}"
        );
        let fixed = c.ok(
            "ultra.applyEdits",
            json!({"files": [{"path": "src/util.ts", "edits": [{"old": "return \"two\";", "new": "return 2 * n;"}]}]}),
        );
        assert_eq!(fixed["newDiagnostics"], json!([]), "round {round}: {fixed}");
        assert_eq!(
            errors(&fixed, "fixedDiagnostics"),
            [("2322".to_string(), 1)],
            "round {round}: {fixed}"
        );
    }
    // The workspace-wide list agrees with what the file holds now.
    let d = c.ok("state.getDiagnostics", json!({"path": "src/util.ts"}));
    assert_eq!(d["diagnostics"], json!([]), "{d}");
}

#[test]
fn a_quick_fix_and_organise_imports_apply_as_one_batch() {
    let ws = with_typescript();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    // tsserver loads the project first: wait for its word on main.ts.
    common::wait_until("typescript to report the missing name", || {
        let d = c.ok("state.getDiagnostics", json!({"path": "src/main.ts"}));
        d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["code"] == "2304")
    });
    let list = c.ok(
        "ultra.codeActions",
        json!({"path": "src/main.ts", "startLine": 1, "only": ["quickfix"]}),
    );
    let fix = list["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap().contains("./util"))
        .unwrap_or_else(|| panic!("an import fix: {list}"))
        .clone();
    assert_eq!(fix["applicable"], true, "{fix}");
    let done = c.ok(
        "ultra.codeActions",
        json!({"path": "src/main.ts", "startLine": 1, "only": ["quickfix"], "apply": fix["index"]}),
    );
    let applied = &done["applied"];
    assert_eq!(applied["applied"], true, "{done}");
    assert!(
        ws.read("src/main.ts").contains("from \"./util\""),
        "{}",
        ws.read("src/main.ts")
    );
    assert_eq!(applied["newDiagnostics"], json!([]), "{done}");
    assert!(
        applied["fixedDiagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "2304"),
        "{done}"
    );
    // Undone in one step.
    c.ok("ultra.undo", json!({"txnId": applied["txnId"]}));
    let text = c.ok("ultra.getFileContent", json!({"path": "src/main.ts"}))["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(text, "const x: number = double(2);\nexport { x };\n");

    // What implements Shape.area: both classes' methods, from tsserver.
    let imps = c.ok(
        "state.findImplementations",
        json!({"path": "src/shapes.ts", "position": at(1, 3)}),
    );
    assert_eq!(imps["precision"], "semantic", "{imps}");
    assert_eq!(
        places(&imps["locations"]),
        [
            ("src/shapes.ts".to_string(), 5),
            ("src/shapes.ts".to_string(), 11)
        ],
        "{imps}"
    );

    // Organise imports.
    let list = c.ok(
        "ultra.codeActions",
        json!({"path": "src/tidy.ts", "only": ["source.organizeImports"]}),
    );
    let organise = list["actions"]
        .as_array()
        .unwrap()
        .first()
        .unwrap_or_else(|| panic!("organise imports: {list}"))
        .clone();
    let done = c.ok(
        "ultra.codeActions",
        json!({"path": "src/tidy.ts", "only": ["source.organizeImports"], "apply": organise["index"]}),
    );
    assert_eq!(done["applied"]["applied"], true, "{done}");
    // Sorted by module (tsserver keeps an unused import unless asked to remove them).
    assert_eq!(
        ws.read("src/tidy.ts"),
        "import { unused } from \"./extra\";\nimport { double } from \"./util\";\n\nexport const y = double(1);\n",
        "{done}"
    );
    // An index that was not offered changes nothing.
    c.err_code(
        "ultra.codeActions",
        json!({"path": "src/tidy.ts", "only": ["source.organizeImports"], "apply": 99}),
        "INVALID_ARGUMENTS",
    );
}

#[test]
fn clangd_judges_c_edits_and_finds_definitions() {
    let clangd = which("clangd").expect("clangd is installed (.ci/run: apt-get install clangd)");
    let ws = Ws::new();
    ws.write("compile_flags.txt", "-xc\n-std=c11\n");
    ws.write("util.h", "int twice(int n);\n");
    ws.write(
        "util.c",
        "#include \"util.h\"\n\nint twice(int n) { return 2 * n; }\n",
    );
    ws.write(
        "main.c",
        "#include \"util.h\"\n\nint main(void) { return twice(2); }\n",
    );
    ws.config(json!({"lsp": {
        "c": {"command": clangd.to_string_lossy()},
        "python": {"enabled": false}, "typescript": {"enabled": false}
    }}));
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let d = c.ok("state.getDiagnostics", json!({"path": "main.c"}));
    assert_eq!(d["languageServer"]["state"], "ready", "{d}");
    assert_eq!(d["diagnostics"], json!([]), "{d}");
    let e = c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "main.c", "edits": [{"old": "twice(2)", "new": "twice(missing)"}]}]}),
    );
    let new = e["newDiagnostics"].as_array().unwrap();
    assert!(
        new.iter().any(|d| d["severity"] == "error"
            && d["message"].as_str().unwrap().contains("missing")
            && d["range"]["start"]["line"] == 2),
        "{e}"
    );
    let def = c.ok(
        "state.goToDefinition",
        json!({"path": "main.c", "position": at(2, 25)}),
    );
    assert_eq!(def["precision"], "semantic", "{def}");
    let paths: Vec<&str> = def["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert!(
        !paths.is_empty() && paths.iter().all(|p| *p == "util.h" || *p == "util.c"),
        "{def}"
    );
}

#[test]
fn gopls_judges_go_edits_finds_references_and_renames() {
    let gopls = which("gopls").expect("gopls is installed (.ci/run: apt-get install gopls)");
    let ws = Ws::new();
    ws.write("go.mod", "module example.com/demo\n\ngo 1.19\n");
    ws.write(
        "util/util.go",
        "package util\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n",
    );
    ws.write(
        "main.go",
        "package main\n\nimport \"example.com/demo/util\"\n\nfunc main() {\n\tprintln(util.Twice(2))\n}\n",
    );
    ws.config(json!({"lsp": {
        "go": {"command": gopls.to_string_lossy()},
        "python": {"enabled": false}, "typescript": {"enabled": false}
    }}));
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let d = c.ok("state.getDiagnostics", json!({"path": "main.go"}));
    assert_eq!(d["languageServer"]["state"], "ready", "{d}");
    assert_eq!(d["diagnostics"], json!([]), "{d}");

    // `Twice` in `util.Twice(2)`: its definition and every use, from the server.
    let def = c.ok(
        "state.goToDefinition",
        json!({"path": "main.go", "position": at(5, 15)}),
    );
    assert_eq!(def["precision"], "semantic", "{def}");
    assert_eq!(
        places(&def["locations"]),
        [("util/util.go".to_string(), 3)],
        "{def}"
    );
    let refs = c.ok(
        "state.findReferences",
        json!({"path": "main.go", "position": at(5, 15)}),
    );
    assert_eq!(refs["precision"], "semantic", "{refs}");
    assert_eq!(
        places(&refs["locations"]),
        [("main.go".to_string(), 5), ("util/util.go".to_string(), 3)],
        "{refs}"
    );

    // A type error an agent's edit brings comes back with the edit.
    let e = c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "main.go", "edits": [{"old": "Twice(2)", "new": "Twice(\"2\")"}]}]}),
    );
    let new = e["newDiagnostics"].as_array().unwrap();
    assert!(
        new.iter()
            .any(|d| d["severity"] == "error" && d["range"]["start"]["line"] == 5),
        "{e}"
    );
    let fixed = c.ok(
        "ultra.applyEdits",
        json!({"files": [{"path": "main.go", "edits": [{"old": "Twice(\"2\")", "new": "Twice(2)"}]}]}),
    );
    assert_eq!(fixed["newDiagnostics"], json!([]), "{fixed}");
    assert!(
        !fixed["fixedDiagnostics"].as_array().unwrap().is_empty(),
        "{fixed}"
    );

    // A rename across both packages, in one undo step.
    let r = c.ok(
        "ultra.renameSymbol",
        json!({"path": "util/util.go", "symbol": "Twice", "line": 4, "newName": "Double"}),
    );
    assert_eq!(r["applied"], true, "{r}");
    assert!(ws.read("main.go").contains("util.Double(2)"), "{r}");
    assert!(
        ws.read("util/util.go").contains("func Double(n int)"),
        "{r}"
    );
    c.ok("ultra.undo", json!({"txnId": r["txnId"]}));
    let text = c.ok("ultra.getFileContent", json!({"path": "main.go"}))["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("util.Twice(2)"), "{text}");
}

/// `name` on `PATH`.
fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
