//! `search.findInFiles` from the text index, through the real server: once
//! `ultra.getWorkspaceInfo` says the index is `ready`, every answer reflects what happened
//! on disk before the query was sent (writes, deletes, a directory moved, `.gitignore`
//! edited) with no wait, and an agent's unsaved edit at once; capped answers are the first
//! matches in path order.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

fn paths(found: &Value) -> Vec<String> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect()
}

fn find(c: &mut common::Conn, query: &str) -> Vec<String> {
    paths(&c.ok("search.findInFiles", json!({"query": query})))
}

#[test]
fn searches_from_the_index_follow_the_disk_and_the_buffers() {
    let ws = Ws::new();
    ws.write("src/a.rs", "fn alpha() {}\n");
    ws.write("src/b.rs", "fn beta() {}\n");
    ws.write(".gitignore", "gen/\n");
    ws.write("gen/x.rs", "// alpha, generated\n");
    ws.write(".hidden/h.rs", "alpha hidden\n");
    std::fs::write(ws.path("blob.bin"), b"alpha\0binary").unwrap();
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    common::wait_until("the text index", || {
        c.ok("ultra.getWorkspaceInfo", json!({}))["textIndex"]["state"] == "ready"
    });
    let info = c.ok("ultra.getWorkspaceInfo", json!({}));
    // src/a.rs, src/b.rs, .gitignore's siblings: blob.bin (binary, known but not indexed).
    assert_eq!(info["textIndex"]["files"], 3, "{info}");
    assert_eq!(find(&mut c, "alpha"), ["src/a.rs"]);

    // Written, changed, deleted on disk: the next query sees it, with no wait.
    ws.write("src/c.rs", "// alpha again\n");
    assert_eq!(find(&mut c, "ALPHA again"), ["src/c.rs"]);
    assert_eq!(find(&mut c, "alpha"), ["src/a.rs", "src/c.rs"]);
    ws.write("src/a.rs", "fn gamma() {}\n");
    assert_eq!(find(&mut c, "alpha"), ["src/c.rs"]);
    std::fs::remove_file(ws.path("src/c.rs")).unwrap();
    assert!(find(&mut c, "alpha").is_empty());

    // A directory moved: its files answer under their new paths.
    std::fs::rename(ws.path("src"), ws.path("lib")).unwrap();
    assert_eq!(find(&mut c, "gamma"), ["lib/a.rs"]);
    // The ignore file changed: what it no longer ignores is searched.
    ws.write(".gitignore", "\n");
    assert_eq!(find(&mut c, "alpha"), ["gen/x.rs"]);

    // An agent's unsaved edit is searched as edited, and its file on disk is not.
    c.ok("ultra.openFile", json!({"path": "lib/b.rs"}));
    c.ok(
        "ultra.edit",
        json!({"path": "lib/b.rs", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// delta\n"}),
    );
    assert_eq!(find(&mut c, "delta"), ["lib/b.rs"]);
    let r = c.ok("search.findInFiles", json!({"query": "beta"}));
    assert_eq!(
        r["results"][0]["matches"][0]["range"]["start"]["line"], 1,
        "{r}"
    );

    // A regex whose trigrams select the files, and one with none (every file is read).
    let r = c.ok(
        "search.findInFiles",
        json!({"query": "fn (gamm|bet)a", "options": {"useRegex": true, "caseSensitive": true}}),
    );
    assert_eq!(paths(&r), ["lib/a.rs", "lib/b.rs"]);
    let r = c.ok(
        "search.findInFiles",
        json!({"query": "^//", "options": {"useRegex": true}}),
    );
    assert_eq!(paths(&r), ["gen/x.rs", "lib/b.rs"]);
}

#[test]
fn capped_answers_are_the_first_matches_in_path_order() {
    let ws = Ws::new();
    for i in 0..60 {
        ws.write(&format!("d{}/f{i:02}.txt", i % 7), "needle\nneedle\n");
    }
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    common::wait_until("the text index", || {
        c.ok("ultra.getWorkspaceInfo", json!({}))["textIndex"]["state"] == "ready"
    });
    let all = c.ok("search.findInFiles", json!({"query": "needle"}));
    assert_eq!(all["count"], 120);
    let every: Vec<String> = paths(&all);
    let mut sorted = every.clone();
    sorted.sort();
    assert_eq!(every, sorted);
    for max in [1usize, 2, 3, 7, 119] {
        let r = c.ok(
            "search.findInFiles",
            json!({"query": "needle", "options": {"maxResults": max}}),
        );
        assert_eq!(r["count"], max, "{r}");
        assert_eq!(r["truncated"], true, "{r}");
        let files = max.div_ceil(2);
        assert_eq!(paths(&r), every[..files], "maxResults {max}");
    }
}
