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

/// Wait until the server's searches use its text index.
fn text_index_ready(c: &mut common::Conn) {
    common::wait_until("the text index", || {
        c.ok("ultra.getWorkspaceInfo", json!({}))["textIndex"]["state"] == "ready"
    });
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
    text_index_ready(&mut c);
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
    text_index_ready(&mut c);
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

/// `grep -r` and the `grep` tool on a server leave unread the files its text index knows
/// to hold no match, and print exactly what a one-shot `ultra -c` (no index: every file
/// read) prints: hidden, ignored and binary files included, for literal, regex, inverted,
/// counting and listing searches; also after a restart on the saved index, with files
/// changed meanwhile (one to the same size).
#[test]
fn grep_from_the_index_prints_what_a_scan_prints() {
    let ws = Ws::new();
    for i in 0..260 {
        let body = match i % 5 {
            0 => "a needle here\nnothing\n".to_string(),
            1 => format!("other {i}\n"),
            _ => format!("plain text {i}\n"),
        };
        ws.write(&format!("d{}/f{i:03}.txt", i % 4), &body);
    }
    ws.write(".gitignore", "gen/\n");
    ws.write("gen/x.txt", "needle, ignored\n");
    ws.write(".hidden.txt", "needle, hidden\n");
    std::fs::write(ws.path("blob.bin"), b"needle\0binary").unwrap();
    let scripts = [
        "grep -rn needle .",
        "grep -rl NEEDLE -i",
        "grep -rc needle d1",
        "grep -rL needle d2",
        "grep -rv needle d3",
        "grep -rnw -e needle -e other .",
        "grep -rnE 'nee+dle|zz[0-9]' .",
        "grep -rnF 'a needle' .",
        "grep -rq nothing-like-this .; echo $?",
    ];
    let scan = |ws: &Ws| -> Vec<String> {
        scripts
            .iter()
            .map(|s| {
                let args = json!({"script": s}).to_string();
                let out = ws.cli(&["-c", "ultra.shell.run", "-a", &args, "--json"]);
                let v = &out.json()[0]["data"];
                format!(
                    "{}\n[{}]",
                    v["stdout"].as_str().unwrap_or(""),
                    v["exitCode"]
                )
            })
            .collect()
    };
    let served = |c: &mut common::Conn| -> Vec<String> {
        scripts
            .iter()
            .map(|s| {
                let v = c.ok("ultra.shell.run", json!({"script": s}));
                format!(
                    "{}\n[{}]",
                    v["stdout"].as_str().unwrap_or(""),
                    v["exitCode"]
                )
            })
            .collect()
    };
    let want = scan(&ws);
    assert!(
        want[0].contains("gen/x.txt") && want[0].contains(".hidden.txt"),
        "{}",
        want[0]
    );
    {
        let _server = ws.serve();
        let mut c = ws.agent("bot");
        text_index_ready(&mut c);
        assert_eq!(served(&mut c), want);
        let r = c.ok(
            "shell.grep",
            json!({"pattern": "needle", "paths": ["d0"], "recursive": true}),
        );
        assert!(r["stdout"].as_str().unwrap().contains("d0/f000.txt"), "{r}");
    }
    // Changed while no server ran: a match removed at the same size, one added, one gone.
    std::thread::sleep(std::time::Duration::from_millis(30));
    ws.write("d0/f000.txt", "a noodle here\nnothing\n");
    ws.write("d1/f001.txt", "needle 1\n");
    std::fs::remove_file(ws.path("d2/f010.txt")).unwrap();
    let want = scan(&ws);
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    text_index_ready(&mut c);
    assert_eq!(served(&mut c), want);
}

/// What a script run printed: its output, its errors and its exit status.
fn printed(v: &Value) -> String {
    format!(
        "{}\n{}\n[{}]",
        v["stdout"].as_str().unwrap(),
        v["stderr"],
        v["exitCode"]
    )
}

/// A change made to a workspace.
type Step<'a> = &'a dyn Fn(&Ws);

/// `grep -r` takes the directories the index follows from it and reads only the files that
/// may match: after each change made while the server runs (files written, removed, made
/// binary; directories made, removed and moved; hidden and ignored directories inside
/// followed ones; symlinks; `.gitignore` edited), with no wait, it prints what a scan of
/// the disk prints.
#[test]
fn grep_from_the_index_follows_changes_made_while_serving() {
    let ws = Ws::new();
    for i in 0..40 {
        let body = if i % 3 == 0 { "a needle\n" } else { "hay\n" };
        ws.write(&format!("d{}/s{}/f{i:02}.txt", i % 3, i % 2), body);
    }
    let scripts = [
        "grep -rn needle .",
        "grep -rli 'NEEDLE|zz' -E d1",
        "grep -rnF -e needle -e straw .",
        "grep -rc needle .",
        "grep -rL needle d1",
    ];
    // A scan in another process, which finds no server at the socket it is given.
    let scan = |ws: &Ws| -> Vec<String> {
        let socket = ws.path("no-server.sock");
        scripts
            .iter()
            .map(|s| {
                let args = json!({"script": s}).to_string();
                let out = ws.cli_with(&["-c", "ultra.shell.run", "-a", &args, "--json"], |c| {
                    c.env("ULTRA_SOCKET", &socket);
                });
                printed(&out.json()[0]["data"])
            })
            .collect()
    };
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    text_index_ready(&mut c);
    let steps: [(&str, Step); 14] = [
        ("a needle added", &|ws| {
            ws.write("d1/s0/f04.txt", "hay\na needle\n")
        }),
        ("a needle removed at the same size", &|ws| {
            ws.write("d0/s0/f00.txt", "a noodle\n")
        }),
        ("a new directory", &|ws| {
            ws.write("d1/new/deep/n.txt", "needle deep\n")
        }),
        ("a hidden directory", &|ws| {
            ws.write("d1/.cache/h.txt", "needle hidden\n")
        }),
        ("an ignored directory", &|ws| {
            ws.write(".gitignore", "gen/\n");
            ws.write("d2/gen/g.txt", "needle ignored\n");
        }),
        ("a file made binary", &|ws| {
            std::fs::write(ws.path("d0/s1/f03.txt"), b"needle\0bin").unwrap()
        }),
        ("a file removed", &|ws| {
            std::fs::remove_file(ws.path("d0/s1/f09.txt")).unwrap()
        }),
        ("a directory removed", &|ws| {
            std::fs::remove_dir_all(ws.path("d1/new")).unwrap()
        }),
        ("a directory moved", &|ws| {
            std::fs::rename(ws.path("d2/s0"), ws.path("d1/moved")).unwrap()
        }),
        ("a symlink to a directory", &|ws| {
            std::os::unix::fs::symlink(ws.path("d1"), ws.path("d0/link")).unwrap()
        }),
        ("a file in a new hidden directory's new child", &|ws| {
            ws.write("d1/.cache/more/m.txt", "straw\n")
        }),
        ("the ignored directory no longer ignored", &|ws| {
            ws.write(".gitignore", "")
        }),
        ("written in the once ignored directory", &|ws| {
            ws.write("d2/gen/g2.txt", "straw and needle\n")
        }),
        ("a directory replaced by a file", &|ws| {
            std::fs::remove_dir_all(ws.path("d1/moved")).unwrap();
            ws.write("d1/moved", "needle, now a file\n");
        }),
    ];
    for (what, step) in steps {
        step(&ws);
        let served: Vec<String> = scripts
            .iter()
            .map(|s| printed(&c.ok("ultra.shell.run", json!({"script": s}))))
            .collect();
        assert_eq!(served, scan(&ws), "after {what}");
    }
    let last = c.ok("ultra.shell.run", json!({"script": "grep -rn needle ."}));
    let out = last["stdout"].as_str().unwrap();
    for seen in [
        "d1/.cache/h.txt",
        "d2/gen/g.txt",
        "d1/moved:1",
        "d1/s0/f04.txt:2",
    ] {
        assert!(out.contains(seen), "{seen} in {out}");
    }
}
