//! Attacks P1–P4 and P7 of `shared/research/security.md` §4, over the real socket as an
//! `ai` client: every path escape is refused with a clean error, and nothing outside the
//! workspace (or under `.git`, or Ultra's config) changes.
//!
//! Read attacks use the real `/etc`. Write attacks aim only at files inside the test's temp
//! dir (next to the root), so a regression could never damage the machine running the tests.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::Path;

use common::{Conn, Ws, range};
use serde_json::{Value, json};

/// A snapshot of every file under `dir` (path → content, or link target for symlinks),
/// skipping the given top-level names.
fn snapshot(dir: &Path, skip: &[&str]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if d == dir && skip.contains(&rel.as_str()) {
                continue;
            }
            let ft = std::fs::symlink_metadata(&p).unwrap().file_type();
            if ft.is_symlink() {
                out.insert(
                    rel,
                    format!("-> {}", std::fs::read_link(&p).unwrap().display()),
                );
            } else if ft.is_dir() {
                out.insert(rel, "<dir>".into());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// A workspace with outside targets and the links of the attack suite, served, with policy
/// letting agents delete without asking (so deletes reach path resolution).
struct Fixture {
    ws: Ws,
    _server: common::Server,
}

fn fixture() -> Fixture {
    let ws = Ws::new();
    let base = ws.base();
    std::fs::write(base.join("outside.txt"), "secret\n").unwrap();
    std::fs::create_dir(base.join("root_evil")).unwrap();
    std::fs::write(base.join("root_evil/x"), "evil\n").unwrap();
    std::fs::create_dir(base.join("fake_etc")).unwrap();
    std::fs::write(base.join("fake_etc/passwd"), "root:x:0:0\n").unwrap();
    ws.write("inside.txt", "inside\n");
    ws.write(".git/config", "[core]\n");
    ws.write(".git/hooks/pre-commit", "#!/bin/sh\n");
    ws.config(json!({ "policy": { "sources": { "ai": { "destructive": "allow" } } } }));
    let r = &ws.root;
    symlink("/etc", r.join("etc")).unwrap();
    symlink(base.join("fake_etc"), r.join("fetc")).unwrap();
    symlink("../../..", r.join("a")).unwrap();
    symlink("..", r.join("up1")).unwrap();
    symlink("../outside.txt", r.join("out.txt")).unwrap();
    symlink(base.join("outside.txt"), r.join("abs_out.txt")).unwrap();
    symlink(".git/config", r.join("gitcfg")).unwrap();
    let server = ws.serve();
    Fixture {
        ws,
        _server: server,
    }
}

const NUL: &str = "inside.txt\0.txt";

fn ten_thousand_components() -> String {
    vec!["d"; 10_000].join("/")
}

/// Expected code for an attack path: the NUL byte and the absurd path are invalid
/// arguments; everything else escapes the workspace.
fn expected(path: &str) -> &'static str {
    if path.contains('\0') || path.len() > 4096 {
        "INVALID_ARGUMENTS"
    } else {
        "PATH_OUTSIDE_WORKSPACE"
    }
}

fn refused(c: &mut Conn, method: &str, params: Value, code: &str) {
    let e = c.err(method, params.clone());
    let shown: String = params.to_string().chars().take(200).collect();
    assert_eq!(e["data"]["code"], code, "{method} {shown}: {e}");
    if code == "PATH_OUTSIDE_WORKSPACE" || code == "RESTRICTED_PATH" {
        assert_eq!(e["code"], -32003, "{method} {shown}: {e}");
    }
    // No content from outside leaks into the error either.
    let text = e.to_string();
    assert!(
        !text.contains("secret") && !text.contains("root:x:0"),
        "{text}"
    );
}

/// P1–P3 reads: `..`, absolute paths, lexical `a/../../x`, NUL, 10k components, a sibling
/// with the root's name as prefix, absolute and relative symlinks out of the root.
#[test]
fn reads_outside_the_root_are_refused() {
    let f = fixture();
    let ws = &f.ws;
    let abs_outside = ws.base().join("outside.txt").display().to_string();
    let passwd_before = std::fs::read("/etc/passwd").ok();
    let mut c = ws.agent("attacker");
    let paths: Vec<String> = vec![
        "../../etc/passwd".into(),
        "/etc/passwd".into(),
        "a/../../x".into(),
        "../outside.txt".into(),
        abs_outside.clone(),
        "../root_evil/x".into(),
        "etc/passwd".into(),
        "a/etc/passwd".into(),
        "up1/outside.txt".into(),
        "out.txt".into(),
        "abs_out.txt".into(),
        "fetc/passwd".into(),
        NUL.into(),
        ten_thousand_components(),
        format!("{}/x", "../".repeat(10_000)),
    ];
    for p in &paths {
        refused(&mut c, "ultra.openFile", json!({ "path": p }), expected(p));
        refused(
            &mut c,
            "ultra.getFileContent",
            json!({ "path": p }),
            expected(p),
        );
    }
    // Nothing was opened.
    assert_eq!(c.ok("ultra.getOpenFiles", json!({})), json!([]));
    // Reading inside works, including through a link that stays inside.
    symlink("inside.txt", ws.path("alias.txt")).unwrap();
    assert_eq!(
        c.ok("ultra.getFileContent", json!({ "path": "alias.txt" }))["content"],
        "inside\n"
    );
    assert_eq!(std::fs::read("/etc/passwd").ok(), passwd_before);
    // Each denial is audited with its outcome.
    let denied = ws
        .audit()
        .into_iter()
        .filter(|e| e["outcome"] == "PATH_OUTSIDE_WORKSPACE")
        .count();
    assert_eq!(denied, 2 * (paths.len() - 3));
}

/// P1–P4 writes: edit, insert, replace, applyEdits, createFile, save, deleteFile and
/// renameFile (both ends) through every escape; outside files stay byte-identical and no
/// file appears outside the root.
#[test]
fn writes_outside_the_root_are_refused_and_change_nothing() {
    let f = fixture();
    let ws = &f.ws;
    let base = ws.base();
    let skip = ["root", "state", "run", "home", "s"];
    let before = snapshot(&base, &skip);
    let root_before = snapshot(&ws.root, &[]);
    let abs_outside = base.join("outside.txt").display().to_string();
    let mut c = ws.agent("attacker");
    // Paths that escape whatever the final component is.
    let escapes: Vec<String> = vec![
        "../outside.txt".into(),
        abs_outside,
        "a/../../outside.txt".into(),
        "../root_evil/x".into(),
        "../root_evil/new.txt".into(),
        "fetc/passwd".into(),
        "fetc/new".into(),
        "up1/outside.txt".into(),
        "up1/root_evil/x".into(),
        NUL.into(),
        ten_thousand_components(),
    ];
    // Final-component links to outside files: writes through them must be refused (delete
    // and rename act on the link itself; see the next test).
    let links: Vec<String> = vec!["out.txt".into(), "abs_out.txt".into()];
    for p in escapes.iter().chain(&links) {
        let code = expected(p);
        refused(
            &mut c,
            "ultra.edit",
            json!({ "path": p, "range": range(0, 0, 0, 0), "text": "pwned " }),
            code,
        );
        refused(
            &mut c,
            "ultra.insertText",
            json!({ "path": p, "text": "pwned ", "position": {"line": 0, "character": 0} }),
            code,
        );
        refused(
            &mut c,
            "ultra.replaceText",
            json!({ "path": p, "search": "e", "replace": "E", "all": true }),
            code,
        );
        refused(
            &mut c,
            "ultra.applyEdits",
            json!({ "files": [
                { "path": "inside.txt", "edits": [{ "old": "inside", "new": "INSIDE" }] },
                { "path": p, "edits": [{ "range": range(0, 0, 0, 0), "text": "pwned " }] }
            ], "save": true }),
            code,
        );
        refused(
            &mut c,
            "ultra.createFile",
            json!({ "path": p, "content": "pwned\n", "overwrite": true }),
            code,
        );
        refused(&mut c, "ultra.save", json!({ "path": p }), code);
    }
    for p in &escapes {
        let code = expected(p);
        refused(
            &mut c,
            "ultra.renameFile",
            json!({ "path": "inside.txt", "newPath": p, "overwrite": true }),
            code,
        );
        refused(&mut c, "ultra.deleteFile", json!({ "path": p }), code);
        refused(
            &mut c,
            "ultra.renameFile",
            json!({ "path": p, "newPath": "stolen.txt" }),
            code,
        );
    }
    assert_eq!(snapshot(&base, &skip), before, "something outside changed");
    assert_eq!(
        snapshot(&ws.root, &[]),
        root_before,
        "something inside changed"
    );
    // The batch that included a good edit to inside.txt left it alone.
    assert_eq!(
        c.ok("ultra.getFileContent", json!({ "path": "inside.txt" }))["content"],
        "inside\n"
    );
}

/// P4: deleting or renaming a symlink that points outside acts on the link only.
#[test]
fn deleting_a_link_removes_only_the_link() {
    let f = fixture();
    let ws = &f.ws;
    let outside = ws.base().join("outside.txt");
    let mut c = ws.agent("cleaner");
    c.ok("ultra.deleteFile", json!({ "path": "out.txt" }));
    assert!(!ws.exists("out.txt"));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret\n");
    c.ok("ultra.deleteFile", json!({ "path": "etc" }));
    assert!(!ws.exists("etc"));
    assert!(Path::new("/etc/passwd").exists());
    let r = c.ok(
        "ultra.renameFile",
        json!({ "path": "abs_out.txt", "newPath": "moved/link.txt" }),
    );
    assert_eq!(r["newPath"], "moved/link.txt");
    let meta = std::fs::symlink_metadata(ws.path("moved/link.txt")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link itself moved");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret\n");
    // ...and it still cannot be read through.
    refused(
        &mut c,
        "ultra.getFileContent",
        json!({ "path": "moved/link.txt" }),
        "PATH_OUTSIDE_WORKSPACE",
    );
    // Renaming a directory link moves the link, never the outside directory.
    c.ok(
        "ultra.renameFile",
        json!({ "path": "fetc", "newPath": "fetc2" }),
    );
    assert_eq!(
        std::fs::read_to_string(ws.base().join("fake_etc/passwd")).unwrap(),
        "root:x:0:0\n"
    );
}

/// P7: `.git` internals (any spelling) and Ultra's own config are not writable by agents
/// or programs: RESTRICTED_PATH, nothing written.
#[test]
fn git_internals_and_config_are_restricted() {
    let f = fixture();
    let ws = &f.ws;
    let root_before = snapshot(&ws.root, &[]);
    let mut c = ws.agent("attacker");
    let paths = [
        ".git/config",
        ".GIT/config",
        ".Git/HEAD",
        ".git//hooks/./pre-commit",
        "x/../.git/config",
        ".git/hooks/post-checkout",
        "vendor/lib/.git/config",
        "ultra.config.json",
        "./ULTRA.CONFIG.JSON",
        "gitcfg",
    ];
    for p in paths {
        refused(
            &mut c,
            "ultra.createFile",
            json!({ "path": p, "content": "[core]\n\thooksPath = /tmp/evil\n", "overwrite": true }),
            "RESTRICTED_PATH",
        );
        refused(
            &mut c,
            "ultra.edit",
            json!({ "path": p, "range": range(0, 0, 0, 0), "text": "x" }),
            "RESTRICTED_PATH",
        );
        refused(
            &mut c,
            "ultra.applyEdits",
            json!({ "files": [{ "path": p, "edits": [{ "range": range(0, 0, 0, 0), "text": "x" }] }], "save": true }),
            "RESTRICTED_PATH",
        );
        // Seed 001's edit tools are refused before anyone is asked to confirm them (G2).
        refused(
            &mut c,
            "code.createFile",
            json!({ "path": p, "content": "[core]\n\thooksPath = /tmp/evil\n" }),
            "RESTRICTED_PATH",
        );
        refused(
            &mut c,
            "code.editLines",
            json!({ "path": p, "start": 1, "end": 1, "content": "x" }),
            "RESTRICTED_PATH",
        );
        // Delete and rename act on `gitcfg` itself (a link), which is not restricted.
        if p != "gitcfg" {
            refused(
                &mut c,
                "ultra.renameFile",
                json!({ "path": "inside.txt", "newPath": p, "overwrite": true }),
                "RESTRICTED_PATH",
            );
            refused(
                &mut c,
                "ultra.deleteFile",
                json!({ "path": p }),
                "RESTRICTED_PATH",
            );
            refused(
                &mut c,
                "ultra.renameFile",
                json!({ "path": p, "newPath": "taken" }),
                "RESTRICTED_PATH",
            );
        }
    }
    refused(
        &mut c,
        "ultra.deleteFile",
        json!({ "path": ".git" }),
        "RESTRICTED_PATH",
    );
    assert_eq!(snapshot(&ws.root, &[]), root_before);
    // Reading .git is still allowed (only writes are restricted).
    assert_eq!(
        c.ok("ultra.getFileContent", json!({ "path": ".git/config" }))["content"],
        "[core]\n"
    );
    // A plain program (ipc) is held to the same rule.
    let mut ipc = ws.connect();
    refused(
        &mut ipc,
        "ultra.createFile",
        json!({ "path": ".git/config", "content": "x", "overwrite": true }),
        "RESTRICTED_PATH",
    );
    assert_eq!(ws.read(".git/config"), "[core]\n");
}
