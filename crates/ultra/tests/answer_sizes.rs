//! Answers sized for a model's context, through the real server: on a workspace where a
//! name is everywhere, a line is 100 KB of minified code, the tree is thousands of entries
//! and every file has a TODO and a syntax error, each default answer stays within 32 KB,
//! counts everything in its totals, pages through all of it with its cursor (nothing
//! missed, nothing twice), and clips long lines around the match. Code (`get_lines`,
//! `get_function`, `get_class`) comes at most 48 KiB of numbered lines at a time, saying
//! where to go on.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeSet;

use common::{Conn, Ws};
use serde_json::{Value, json};

/// The default page size plus the fixed fields around the list.
const MAX_ANSWER: usize = 34 * 1024;

fn workspace() -> Ws {
    let ws = Ws::new();
    for i in 0..300 {
        ws.write(
            &format!("src/lib/m{i:03}.ts"),
            &format!(
                "// TODO: item {i}: a note long enough to take some room in an answer, as real ones do\nexport function clone(x: number): number {{\n  return clone(x - 1) + {i};\n}}\nlet = ;\n"
            ),
        );
    }
    let minified: String = (0..4000)
        .map(|i| format!("var a{i}=clone(b{i});"))
        .collect();
    ws.write("web/min.js", &format!("{minified}\n"));
    for a in 0..10 {
        for b in 0..10 {
            for c in 0..10 {
                ws.write(&format!("deep/a{a}/b{b}/c{c}/notes.txt"), "x\n");
            }
        }
    }
    ws
}

fn size(v: &Value) -> usize {
    serde_json::to_string(v).unwrap().len()
}

/// Every item of `key` over all pages, following `nextCursor`; each page within bounds.
fn all_pages(c: &mut Conn, method: &str, args: Value, key: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut args = args;
    for _ in 0..1000 {
        let r = c.ok(method, args.clone());
        assert!(
            size(&r) <= MAX_ANSWER,
            "{method} page of {} bytes",
            size(&r)
        );
        items.extend(r[key].as_array().unwrap().iter().cloned());
        match r["nextCursor"].as_u64() {
            Some(n) => {
                assert_eq!(
                    n as usize,
                    items.len(),
                    "{method}: cursor after {} items",
                    items.len()
                );
                args["cursor"] = json!(n);
            }
            None => return items,
        }
    }
    panic!("{method} never ended");
}

#[test]
fn default_answers_fit_and_page_through_everything() {
    let ws = workspace();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("code.reindex", json!({}));

    // find_references: 300 files × 2, and 4000 in one minified line.
    let r = c.ok("code.findReferences", json!({"symbol": "clone"}));
    assert!(size(&r) <= MAX_ANSWER, "{} bytes", size(&r));
    assert_eq!(r["totalReferences"], 4600);
    assert!(r["nextCursor"].is_u64(), "{}", r["text"]);
    assert!(r["text"].as_str().unwrap().contains("4600"));
    let refs = all_pages(
        &mut c,
        "code.findReferences",
        json!({"symbol": "clone", "limit": 10000}),
        "references",
    );
    assert_eq!(refs.len(), 4600);
    let distinct: BTreeSet<String> = refs
        .iter()
        .map(|r| format!("{}:{}:{}", r["path"], r["line"], r["column"]))
        .collect();
    assert_eq!(distinct.len(), 4600, "a reference came twice");
    let minified: Vec<&Value> = refs.iter().filter(|r| r["path"] == "web/min.js").collect();
    assert_eq!(minified.len(), 4000);
    for r in minified.iter().step_by(499) {
        let line = r["context"][0].as_str().unwrap();
        assert!(line.chars().count() < 320, "{} chars", line.chars().count());
        assert!(line.contains("clone"), "{line}");
        assert!(line.contains("chars clipped"), "{line}");
    }

    // find_definition: 300 definitions.
    let d = c.ok(
        "code.findDefinition",
        json!({"symbol": "clone", "limit": 1000}),
    );
    assert!(size(&d) <= MAX_ANSWER, "{} bytes", size(&d));
    assert_eq!(d["total"], 300);
    let defs = all_pages(
        &mut c,
        "code.findDefinition",
        json!({"symbol": "clone", "limit": 1000}),
        "definitions",
    );
    assert_eq!(defs.len(), 300);

    // get_todos: one a file.
    let t = c.ok("code.getTodos", json!({}));
    assert!(size(&t) <= MAX_ANSWER, "{} bytes", size(&t));
    assert_eq!(t["summary"]["total"], 300);
    let todos = all_pages(&mut c, "code.getTodos", json!({"limit": 10000}), "todos");
    assert_eq!(todos.len(), 300);

    // getDiagnostics: every file has a syntax error.
    let g = c.ok("state.getDiagnostics", json!({}));
    assert!(size(&g) <= MAX_ANSWER, "{} bytes", size(&g));
    let total = g["total"].as_u64().unwrap() as usize;
    assert!(total >= 300, "{g}");
    assert_eq!(g["files"], 300);
    let diags = all_pages(
        &mut c,
        "state.getDiagnostics",
        json!({"limit": 10000}),
        "diagnostics",
    );
    assert_eq!(diags.len(), total);

    // get_structure: 1,000 files in 1,110 directories, and the rest.
    let s = c.ok("code.getStructure", json!({}));
    assert!(size(&s) <= MAX_ANSWER, "{} bytes", size(&s));
    assert_eq!(s["files"], 1301, "{}", s["text"]);
    assert_eq!(s["directories"], 1114, "{}", s["text"]);
    assert_eq!(s["truncated"], true);
    let shown = s["shownDepth"].as_u64().unwrap();
    assert!(shown >= 1, "{s}");
    let text = s["text"].as_str().unwrap();
    assert!(
        text.contains("Stats: 1114 directories, 1301 files"),
        "{text}"
    );
    assert!(
        text.contains("files, "),
        "collapsed directories show counts: {text}"
    );
    assert!(text.contains("ask for a subdirectory"), "{text}");
    // A subdirectory that fits comes back whole.
    let sub = c.ok("code.getStructure", json!({"path": "deep/a3"}));
    assert_eq!(sub["truncated"], false, "{sub}");
    assert_eq!(sub["files"], 100);
    assert!(sub["text"].as_str().unwrap().contains("c9/"), "{sub}");
}

/// `get_lines` on a file far bigger than one answer: each answer holds at most 48 KiB of
/// lines and says where to go on, the pages add up to the file exactly, a line longer than
/// an answer comes cut with its length, and the hash it gives is the one an edit checks.
#[test]
fn get_lines_pages_through_a_long_file_and_gives_the_hash_edits_check() {
    let ws = workspace();
    let lines: Vec<String> = (0..40_000)
        .map(|i| format!("line {i}: {}", "word ".repeat(i % 17)))
        .collect();
    // Over 1 MiB: read in windows from a kept line map, not whole.
    ws.write("logs/big.log", &(lines.join("\n") + "\n"));
    assert!(ws.read("logs/big.log").len() > 1 << 20);
    let _server = ws.serve();
    let mut c = ws.agent("bot");

    let mut got = String::new();
    let mut start = 1;
    let mut pages = 0;
    let hash = loop {
        let r = c.ok(
            "code.getLines",
            json!({"path": "logs/big.log", "start": start}),
        );
        fits(&r, "text");
        assert_eq!(r["totalLines"], 40_000);
        assert_eq!(r["start"], start);
        got.push_str(r["text"].as_str().unwrap());
        pages += 1;
        match r["nextStart"].as_u64() {
            Some(next) => {
                assert_eq!(next, r["end"].as_u64().unwrap() + 1);
                start = next;
            }
            None => {
                assert_eq!(r["end"], 40_000);
                break r["hash"].as_str().unwrap().to_string();
            }
        }
        assert!(pages < 100, "never ended");
    };
    let want: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
        .collect();
    assert!(pages > 20, "{pages} pages");
    assert!(got == want, "the pages differ from the file");

    // One line of 80 KB: given cut, with its length, and nothing after it to ask for.
    let r = c.ok("code.getLines", json!({"path": "web/min.js"}));
    assert_eq!((r["start"].as_u64(), r["end"].as_u64()), (Some(1), Some(1)));
    let whole = ws.read("web/min.js").trim_end().len() as u64;
    assert_eq!(r["lineCut"].as_u64(), Some(whole), "{}", r["text"]);
    assert!(r["nextStart"].is_null());
    fits(&r, "text");

    // The hash is the file's, as read_file gives it, and edits check against it (made by
    // a person here: an agent's edit waits for one).
    let read = c.ok(
        "ultra.getFileContent",
        json!({"path": "logs/big.log", "limit": 1}),
    );
    assert_eq!(read["hash"].as_str(), Some(hash.as_str()));
    let edit = json!({"path": "logs/big.log", "start": 1, "end": 1, "content": "first",
        "expectedHash": hash});
    let mut person = ws.connect();
    person.ok("code.editLines", edit.clone());
    let stale = person.call("code.editLines", edit);
    assert_eq!(stale["error"]["data"]["code"], "STALE_VERSION", "{stale}");
    let after = c.ok("code.getLines", json!({"path": "logs/big.log", "end": 1}));
    assert_eq!(after["text"], "     1\tfirst\n");
    assert_ne!(after["hash"].as_str(), Some(hash.as_str()));
}

/// A function, a class or an unparsed file longer than one answer: the code stops within
/// the bound, says where (`nextStart`), and `get_lines` from there gives the rest.
#[test]
fn long_functions_classes_and_fallbacks_stop_at_one_answer() {
    let ws = Ws::new();
    let body: String = (0..4000)
        .map(|i| format!("  total += step({i}); // keep going\n"))
        .collect();
    ws.write(
        "src/gen.ts",
        &format!(
            "export function huge(): number {{\n  let total = 0;\n{body}  return total;\n}}\nexport class Big {{\n  run(): void {{\n{body}  }}\n}}\n"
        ),
    );
    let wide = format!("{}\n", "x".repeat(70_000)).repeat(3);
    ws.write("notes/wide.txt", &wide);
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("code.reindex", json!({}));

    let f = c.ok(
        "code.getFunction",
        json!({"path": "src/gen.ts", "name": "huge"}),
    );
    fits(&f, "code");
    assert_eq!(
        (f["lineStart"].as_u64(), f["lineEnd"].as_u64()),
        (Some(1), Some(4004))
    );
    let next = f["nextStart"].as_u64().expect("nextStart");
    let code = f["code"].as_str().unwrap();
    assert!(code.ends_with(&format!(
        "{:>6}\t{}\n",
        next - 1,
        line_of(&ws, "src/gen.ts", next - 1)
    )));
    let rest = c.ok(
        "code.getLines",
        json!({"path": "src/gen.ts", "start": next, "end": 4004}),
    );
    assert_eq!(rest["start"].as_u64(), Some(next));

    let class = c.ok(
        "code.getClass",
        json!({"path": "src/gen.ts", "name": "Big"}),
    );
    fits(&class, "code");
    assert!(class["nextStart"].as_u64().is_some(), "{class}");

    // Not a language the index parses: the file comes back as far as one answer goes,
    // its first line cut, and nothing says the whole file was given.
    let fb = c.ok(
        "code.getFunction",
        json!({"path": "notes/wide.txt", "name": "any"}),
    );
    fits(&fb, "code");
    assert_eq!(fb["lineEnd"].as_u64(), Some(1));
    assert_eq!(fb["lineCut"].as_u64(), Some(70_000));
    assert_eq!(fb["nextStart"].as_u64(), Some(2));
    assert!(
        fb["fallback"]
            .as_str()
            .unwrap()
            .contains("first 1 of 3 lines"),
        "{fb}"
    );
}

/// Whether the numbered code in `key` is within the 48 KiB one answer holds (what MCP
/// sends as text), and the whole answer, escaped as JSON, within 56 KiB.
fn fits(answer: &Value, key: &str) {
    let code = answer[key].as_str().unwrap().len();
    assert!(code <= 48 * 1024, "{key}: {code} bytes");
    assert!(size(answer) <= 56 * 1024, "{} bytes", size(answer));
}

/// Line `n` (1-based) of a workspace file.
fn line_of(ws: &Ws, path: &str, n: u64) -> String {
    ws.read(path)
        .lines()
        .nth(n as usize - 1)
        .unwrap()
        .to_string()
}
