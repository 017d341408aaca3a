//! Black-box tests of the seed 003 `editor.*` and `fs.*` methods against real files in temp
//! dirs: confinement (symlinks, `..`, absolute paths), protected paths, recursive deletes
//! next to symlinks, stale preconditions and binary round trips.
// Fixture helpers outside #[test] fns unwrap too.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use ultra_commands::Services;
use ultra_core::policy::{Decision, RiskTable};
use ultra_core::{Config, Executor};
use ultra_protocol::{CommandResult, Source, SourceKind};

const APP: &str = "const x = 1;\nconsole.log(x);\n";

fn config() -> Config {
    let mut c = Config::default();
    c.audit.enabled = false;
    // Destructive commands would wait for a person; these tests check what the handlers
    // themselves refuse.
    c.policy.sources.insert(
        "ai".into(),
        RiskTable {
            destructive: Some(Decision::Allow),
            ..Default::default()
        },
    );
    c
}

/// A workspace `ws/` next to a directory `outside/` holding `secret.txt`, both in one temp
/// dir so relative links can reach out.
struct Fixture {
    _tmp: tempfile::TempDir,
    ws: std::path::PathBuf,
    outside: std::path::PathBuf,
    exec: Arc<Executor<Services>>,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(ws.join("src/app.ts"), APP).unwrap();
    std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    let exec = ultra_commands::build(&ws, config()).unwrap();
    Fixture {
        _tmp: tmp,
        ws,
        outside,
        exec,
    }
}

impl Fixture {
    async fn run(&self, kind: SourceKind, id: &str, args: Value) -> CommandResult {
        self.exec.execute(id, args, Source::new(kind)).await
    }

    async fn ai(&self, id: &str, args: Value) -> CommandResult {
        self.run(SourceKind::Ai, id, args).await
    }

    async fn ok(&self, id: &str, args: Value) -> Value {
        let r = self.ai(id, args.clone()).await;
        assert!(r.success, "{id} {args}: {:?}", r.error);
        r.data.unwrap_or(Value::Null)
    }

    async fn fails(&self, id: &str, args: Value, code: &str) {
        let r = self.ai(id, args.clone()).await;
        let got = r.error.as_ref().map(|e| e.code.as_str().to_string());
        assert_eq!(got.as_deref(), Some(code), "{id} {args}: {:?}", r.data);
    }
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

#[tokio::test]
async fn every_seed003_method_is_registered() {
    let f = fixture();
    for m in [
        "editor.openFile",
        "editor.closeFile",
        "editor.getContent",
        "editor.setContent",
        "editor.insertText",
        "editor.replaceRange",
        "editor.deleteRange",
        "editor.setSelection",
        "editor.revealLine",
        "editor.getSelection",
        "editor.getActiveFile",
        "editor.getOpenFiles",
        "editor.save",
        "editor.saveAll",
        "fs.readFile",
        "fs.writeFile",
        "fs.appendFile",
        "fs.deleteFile",
        "fs.rename",
        "fs.copy",
        "fs.createDirectory",
        "fs.deleteDirectory",
        "fs.listDirectory",
        "fs.exists",
        "fs.stat",
    ] {
        assert!(f.exec.registry().has(m), "{m} is not registered");
    }
}

#[tokio::test]
async fn symlinks_out_of_the_root_are_refused() {
    let f = fixture();
    symlink(&f.outside, f.ws.join("abs_link")).unwrap();
    symlink("../outside", f.ws.join("rel_link")).unwrap();
    symlink("../outside/secret.txt", f.ws.join("secret_link")).unwrap();

    for p in ["abs_link/secret.txt", "rel_link/secret.txt", "secret_link"] {
        f.fails("fs.readFile", json!({"path": p}), "PATH_OUTSIDE_WORKSPACE")
            .await;
        f.fails(
            "fs.readFile",
            json!({"path": p, "encoding": "base64"}),
            "PATH_OUTSIDE_WORKSPACE",
        )
        .await;
        f.fails(
            "editor.getContent",
            json!({"path": p}),
            "PATH_OUTSIDE_WORKSPACE",
        )
        .await;
        f.fails(
            "fs.writeFile",
            json!({"path": p, "content": "pwned\n"}),
            "PATH_OUTSIDE_WORKSPACE",
        )
        .await;
        f.fails(
            "fs.appendFile",
            json!({"path": p, "content": "pwned\n"}),
            "PATH_OUTSIDE_WORKSPACE",
        )
        .await;
    }
    f.fails(
        "fs.writeFile",
        json!({"path": "abs_link/new.txt", "content": "x"}),
        "PATH_OUTSIDE_WORKSPACE",
    )
    .await;
    f.fails(
        "fs.copy",
        json!({"source": "src/app.ts", "destination": "rel_link/copy.ts"}),
        "PATH_OUTSIDE_WORKSPACE",
    )
    .await;
    f.fails(
        "fs.copy",
        json!({"source": "secret_link", "destination": "stolen.txt"}),
        "PATH_OUTSIDE_WORKSPACE",
    )
    .await;
    assert_eq!(read(&f.outside.join("secret.txt")), b"secret\n");
    assert!(!f.outside.join("new.txt").exists());
    assert!(!f.outside.join("copy.ts").exists());
    assert!(!f.ws.join("stolen.txt").exists());

    // Listing the link itself is refused; listing its parent shows it as a symlink and
    // never descends through it.
    for p in ["abs_link", "rel_link"] {
        f.fails(
            "fs.listDirectory",
            json!({"path": p}),
            "PATH_OUTSIDE_WORKSPACE",
        )
        .await;
    }
    let listing = f
        .ok("fs.listDirectory", json!({"path": ".", "recursive": true}))
        .await;
    let entries = listing["entries"].as_array().unwrap();
    for link in ["abs_link", "rel_link", "secret_link"] {
        let e = entries.iter().find(|e| e["name"] == link).unwrap();
        assert_eq!(e["type"], "symlink", "{e}");
    }
    assert!(
        entries
            .iter()
            .all(|e| !e["path"].as_str().unwrap().contains("secret.txt")),
        "{listing}"
    );

    // exists/stat report the link without following it out.
    let ex = f.ok("fs.exists", json!({"path": "abs_link"})).await;
    assert_eq!(
        ex,
        json!({"exists": true, "isFile": false, "isDirectory": false, "isSymlink": true})
    );
    let st = f.ok("fs.stat", json!({"path": "secret_link"})).await;
    assert_eq!(st["type"], "symlink");
    assert_eq!(st["isSymlink"], true);
}

#[tokio::test]
async fn dotdot_and_absolute_outside_paths_are_refused() {
    let f = fixture();
    let abs_outside = f.outside.join("secret.txt").display().to_string();
    for p in [
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        "/etc/passwd",
        abs_outside.as_str(),
    ] {
        for (id, args) in [
            ("fs.readFile", json!({"path": p})),
            ("fs.writeFile", json!({"path": p, "content": "x"})),
            ("fs.appendFile", json!({"path": p, "content": "x"})),
            ("fs.deleteFile", json!({"path": p})),
            ("fs.listDirectory", json!({"path": p})),
            ("fs.exists", json!({"path": p})),
            ("fs.stat", json!({"path": p})),
            ("fs.createDirectory", json!({"path": p})),
            ("fs.deleteDirectory", json!({"path": p, "recursive": true})),
            ("fs.rename", json!({"oldPath": "src/app.ts", "newPath": p})),
            ("fs.rename", json!({"oldPath": p, "newPath": "x.txt"})),
            ("fs.copy", json!({"source": "src/app.ts", "destination": p})),
            ("fs.copy", json!({"source": p, "destination": "x.txt"})),
            ("editor.openFile", json!({"path": p})),
            ("editor.setContent", json!({"path": p, "content": "x"})),
        ] {
            f.fails(id, args, "PATH_OUTSIDE_WORKSPACE").await;
        }
    }
    assert_eq!(read(&f.outside.join("secret.txt")), b"secret\n");
    assert_eq!(read(&f.ws.join("src/app.ts")), APP.as_bytes());
    // An absolute path inside the root is fine.
    let inside = f.ws.join("src/app.ts").display().to_string();
    let r = f.ok("fs.readFile", json!({"path": inside})).await;
    assert_eq!(r["content"], APP);
    assert_eq!(r["path"], "src/app.ts");
}

#[tokio::test]
async fn git_internals_are_not_writable_by_agents() {
    let f = fixture();
    for (id, args) in [
        (
            "fs.writeFile",
            json!({"path": ".git/config", "content": "[x]\n"}),
        ),
        (
            "fs.writeFile",
            json!({"path": ".GIT/config", "content": "[x]\n"}),
        ),
        (
            "fs.appendFile",
            json!({"path": ".git/config", "content": "[x]\n"}),
        ),
        ("fs.deleteFile", json!({"path": ".git/config"})),
        (
            "fs.rename",
            json!({"oldPath": ".git/config", "newPath": "config"}),
        ),
        (
            "fs.rename",
            json!({"oldPath": "src/app.ts", "newPath": ".git/hooks/pre-commit"}),
        ),
        (
            "fs.copy",
            json!({"source": "src/app.ts", "destination": ".git/config", "overwrite": true}),
        ),
        ("fs.createDirectory", json!({"path": ".git/hooks"})),
        (
            "fs.deleteDirectory",
            json!({"path": ".git", "recursive": true}),
        ),
        (
            "editor.setContent",
            json!({"path": ".git/config", "content": "x"}),
        ),
        (
            "editor.insertText",
            json!({"path": ".git/config", "position": {"line": 0, "character": 0}, "text": "x"}),
        ),
    ] {
        f.fails(id, args, "RESTRICTED_PATH").await;
    }
    // A tree hiding a nested repository is protected too.
    std::fs::create_dir_all(f.ws.join("vendor/dep/.git")).unwrap();
    std::fs::write(f.ws.join("vendor/dep/.git/HEAD"), "ref\n").unwrap();
    f.fails(
        "fs.deleteDirectory",
        json!({"path": "vendor", "recursive": true}),
        "RESTRICTED_PATH",
    )
    .await;
    assert!(f.ws.join("vendor/dep/.git/HEAD").exists());
    assert_eq!(read(&f.ws.join(".git/config")), b"[core]\n");
    assert!(!f.ws.join(".git/hooks").exists());
    // Reading is allowed, and a person may write.
    f.ok("fs.readFile", json!({"path": ".git/config"})).await;
    let r = f
        .run(
            SourceKind::Human,
            "fs.writeFile",
            json!({"path": ".git/config", "content": "[user]\n"}),
        )
        .await;
    assert!(r.success, "{:?}", r.error);
    assert_eq!(read(&f.ws.join(".git/config")), b"[user]\n");
}

#[tokio::test]
async fn recursive_delete_never_follows_symlinks() {
    let f = fixture();
    std::fs::create_dir_all(f.ws.join("build/sub")).unwrap();
    std::fs::write(f.ws.join("build/sub/out.o"), "obj").unwrap();
    symlink(&f.outside, f.ws.join("build/abs_link")).unwrap();
    symlink("../../outside", f.ws.join("build/sub/rel_link")).unwrap();
    symlink("../src", f.ws.join("build/src_link")).unwrap();

    let r = f
        .ok(
            "fs.deleteDirectory",
            json!({"path": "build", "recursive": true}),
        )
        .await;
    assert_eq!(
        r,
        json!({"success": true, "path": "build", "deleted": true})
    );
    assert!(!f.ws.join("build").exists());
    assert_eq!(read(&f.outside.join("secret.txt")), b"secret\n");
    assert_eq!(read(&f.ws.join("src/app.ts")), APP.as_bytes());

    // A symlink to a directory is not deleted through, whether named as the directory or
    // with a trailing component.
    symlink("../outside", f.ws.join("out_link")).unwrap();
    f.fails(
        "fs.deleteDirectory",
        json!({"path": "out_link", "recursive": true}),
        "NOT_A_DIRECTORY",
    )
    .await;
    symlink("src", f.ws.join("src_link")).unwrap();
    f.fails(
        "fs.deleteDirectory",
        json!({"path": "src_link", "recursive": true}),
        "NOT_A_DIRECTORY",
    )
    .await;
    assert!(f.ws.join("src/app.ts").exists());
    assert_eq!(read(&f.outside.join("secret.txt")), b"secret\n");
    // fs.deleteFile removes the link itself.
    f.ok("fs.deleteFile", json!({"path": "out_link"})).await;
    assert!(!f.ws.join("out_link").exists());
    assert!(f.outside.join("secret.txt").exists());
}

#[tokio::test]
async fn delete_directory_closes_buffers_and_respects_unsaved_changes() {
    let f = fixture();
    f.ok(
        "editor.insertText",
        json!({"path": "src/app.ts", "position": {"line": 0, "character": 0}, "text": "// x\n"}),
    )
    .await;
    f.fails(
        "fs.deleteDirectory",
        json!({"path": "src", "recursive": true}),
        "BUFFER_DIRTY",
    )
    .await;
    assert!(f.ws.join("src/app.ts").exists());
    f.ok(
        "fs.deleteDirectory",
        json!({"path": "src", "recursive": true, "force": true}),
    )
    .await;
    assert!(!f.ws.join("src").exists());
    let open = f.ok("editor.getOpenFiles", json!({})).await;
    assert_eq!(open["files"], json!([]));
    f.fails("editor.getActiveFile", json!({}), "NO_ACTIVE_BUFFER")
        .await;
}

#[tokio::test]
async fn stale_expected_hash_changes_nothing() {
    let f = fixture();
    let read1 = f.ok("fs.readFile", json!({"path": "src/app.ts"})).await;
    let hash = read1["hash"].as_str().unwrap().to_string();
    // Someone else changes the file.
    std::fs::write(f.ws.join("src/app.ts"), "const x = 2;\n").unwrap();
    for (id, args) in [
        (
            "fs.writeFile",
            json!({"path": "src/app.ts", "content": "mine\n", "expectedHash": hash}),
        ),
        (
            "fs.appendFile",
            json!({"path": "src/app.ts", "content": "mine\n", "expectedHash": hash}),
        ),
        (
            "fs.deleteFile",
            json!({"path": "src/app.ts", "expectedHash": hash}),
        ),
        (
            "fs.rename",
            json!({"oldPath": "src/app.ts", "newPath": "moved.ts", "expectedHash": hash}),
        ),
        (
            "fs.copy",
            json!({"source": ".git/config", "destination": "src/app.ts", "overwrite": true, "expectedHash": hash}),
        ),
        (
            "editor.setContent",
            json!({"path": "src/app.ts", "content": "mine\n", "expectedHash": hash}),
        ),
    ] {
        let r = f.ai(id, args).await;
        let err = r.error.unwrap_or_else(|| panic!("{id} succeeded"));
        assert_eq!(err.code.as_str(), "STALE_VERSION", "{id}: {err:?}");
        let details = err.details.unwrap();
        assert!(details["currentHash"].is_string(), "{id}: {details}");
        assert_eq!(read(&f.ws.join("src/app.ts")), b"const x = 2;\n", "{id}");
    }
    assert!(!f.ws.join("moved.ts").exists());

    // With the file open, a stale hash or version leaves the buffer alone too.
    let opened = f.ok("editor.openFile", json!({"path": "src/app.ts"})).await;
    let version = opened["version"].as_u64().unwrap();
    f.fails(
        "fs.writeFile",
        json!({"path": "src/app.ts", "content": "mine\n", "expectedHash": hash}),
        "STALE_VERSION",
    )
    .await;
    f.fails(
        "fs.writeFile",
        json!({"path": "src/app.ts", "content": "mine\n", "expectedVersion": version + 1}),
        "STALE_VERSION",
    )
    .await;
    let content = f
        .ok("editor.getContent", json!({"path": "src/app.ts"}))
        .await;
    assert_eq!(content["content"], "const x = 2;\n");
    assert_eq!(content["version"].as_u64(), Some(version));

    // The current hash works.
    let current = content["hash"].as_str().unwrap();
    let w = f
        .ok(
            "fs.writeFile",
            json!({"path": "src/app.ts", "content": "mine\n", "expectedHash": current}),
        )
        .await;
    assert_eq!(w["created"], false);
    assert_eq!(w["version"].as_u64(), Some(version + 1));
    assert_eq!(read(&f.ws.join("src/app.ts")), b"mine\n");
}

#[tokio::test]
async fn base64_round_trips_binary_bytes() {
    let f = fixture();
    let bytes: Vec<u8> = (0..=255u8).rev().chain(0..=255u8).collect();
    let encoded = {
        // Independent reference encoder: a 6-bit walk over the bit string.
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bits: Vec<u8> = bytes
            .iter()
            .flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1))
            .collect();
        let mut s: String = bits
            .chunks(6)
            .map(|c| {
                let v = c
                    .iter()
                    .chain(std::iter::repeat(&0))
                    .take(6)
                    .fold(0, |a, b| a << 1 | b);
                A[v as usize] as char
            })
            .collect();
        while !s.len().is_multiple_of(4) {
            s.push('=');
        }
        s
    };
    let w = f
        .ok(
            "fs.writeFile",
            json!({"path": "assets/blob.bin", "content": encoded, "encoding": "base64"}),
        )
        .await;
    assert_eq!(w["bytes"].as_u64(), Some(bytes.len() as u64));
    assert_eq!(read(&f.ws.join("assets/blob.bin")), bytes);

    let r = f
        .ok(
            "fs.readFile",
            json!({"path": "assets/blob.bin", "encoding": "base64"}),
        )
        .await;
    assert_eq!(r["content"], encoded);
    assert_eq!(r["size"].as_u64(), Some(bytes.len() as u64));
    assert_eq!(r["hash"], w["hash"]);

    // Binary is not text; bad base64 and unknown encodings are argument errors.
    f.fails(
        "fs.readFile",
        json!({"path": "assets/blob.bin"}),
        "BINARY_FILE",
    )
    .await;
    f.fails(
        "fs.writeFile",
        json!({"path": "x.bin", "content": "%%%", "encoding": "base64"}),
        "INVALID_ARGUMENTS",
    )
    .await;
    f.fails(
        "fs.readFile",
        json!({"path": "src/app.ts", "encoding": "utf16"}),
        "INVALID_ARGUMENTS",
    )
    .await;
    assert!(!f.ws.join("x.bin").exists());

    // Copies keep the bytes.
    f.ok(
        "fs.copy",
        json!({"source": "assets/blob.bin", "destination": "assets/copy.bin"}),
    )
    .await;
    assert_eq!(read(&f.ws.join("assets/copy.bin")), bytes);
}

#[tokio::test]
async fn editor_methods_share_the_buffer() {
    let f = fixture();
    let opened = f.ok("editor.openFile", json!({"path": "src/app.ts"})).await;
    let root = std::fs::canonicalize(&f.ws).unwrap();
    assert_eq!(
        opened["documentUri"],
        format!("file://{}/src/app.ts", root.display())
    );
    let active = f.ok("editor.getActiveFile", json!({})).await;
    assert_eq!(active["path"], "src/app.ts");
    assert_eq!(active["languageId"], "typescript");

    f.ok(
        "editor.replaceRange",
        json!({"path": "src/app.ts", "range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "column": 7}}, "text": "total"}),
    )
    .await;
    f.ok(
        "editor.setSelection",
        json!({"path": "src/app.ts", "range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 11}}}),
    )
    .await;
    let sel = f
        .ok("editor.getSelection", json!({"path": "src/app.ts"}))
        .await;
    assert_eq!(sel["text"], "total");
    assert_eq!(
        sel["range"],
        json!({"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 11}})
    );

    // The buffer is dirty; fs reads see it, the disk does not yet.
    let r = f.ok("fs.readFile", json!({"path": "src/app.ts"})).await;
    assert_eq!(r["isDirty"], true);
    assert!(r["content"].as_str().unwrap().starts_with("const total"));
    assert_eq!(read(&f.ws.join("src/app.ts")), APP.as_bytes());

    let saved = f
        .ok(
            "editor.save",
            json!({"path": "src/app.ts", "expectedVersion": 2}),
        )
        .await;
    assert_eq!(saved["success"], true);
    assert!(
        String::from_utf8(read(&f.ws.join("src/app.ts")))
            .unwrap()
            .starts_with("const total")
    );

    f.ok(
        "editor.revealLine",
        json!({"path": "src/app.ts", "line": 1, "at": "top"}),
    )
    .await;
    let sel = f.ok("editor.getSelection", json!({})).await;
    assert_eq!(sel["range"]["start"], json!({"line": 1, "character": 0}));

    // An append to an open file goes through the buffer, is saved, and can be undone.
    let a = f
        .ok(
            "fs.appendFile",
            json!({"path": "src/app.ts", "content": "export {};\n"}),
        )
        .await;
    assert_eq!(a["version"].as_u64(), Some(3));
    let disk = String::from_utf8(read(&f.ws.join("src/app.ts"))).unwrap();
    assert!(disk.ends_with("console.log(x);\nexport {};\n"), "{disk}");
    f.ok("ultra.undo", json!({})).await;
    let c = f
        .ok("editor.getContent", json!({"path": "src/app.ts"}))
        .await;
    assert!(!c["content"].as_str().unwrap().contains("export"));

    f.ok("editor.saveAll", json!({})).await;
    f.ok("editor.closeFile", json!({"path": "src/app.ts"}))
        .await;
    f.fails("editor.getActiveFile", json!({}), "NO_ACTIVE_BUFFER")
        .await;
}

#[tokio::test]
async fn listing_is_capped_and_stat_reports_metadata() {
    let f = fixture();
    std::fs::create_dir_all(f.ws.join("many")).unwrap();
    for i in 0..10_050 {
        std::fs::write(f.ws.join(format!("many/f{i:05}")), "").unwrap();
    }
    let l = f
        .ok("fs.listDirectory", json!({"path": ".", "recursive": true}))
        .await;
    assert_eq!(l["truncated"], true);
    assert_eq!(l["entries"].as_array().unwrap().len(), 10_000);
    let l = f
        .ok(
            "fs.listDirectory",
            json!({"path": "many", "maxEntries": 1_000_000}),
        )
        .await;
    assert_eq!(l["entries"].as_array().unwrap().len(), 10_000);

    // `.git` is listed but never descended into.
    let l = f
        .ok(
            "fs.listDirectory",
            json!({"path": ".", "recursive": true, "maxEntries": 20}),
        )
        .await;
    let paths: Vec<&str> = l["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&".git"));
    assert!(!paths.contains(&".git/config"));

    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        f.ws.join("src/app.ts"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let st = f.ok("fs.stat", json!({"path": "src/app.ts"})).await;
    assert_eq!(st["size"].as_u64(), Some(APP.len() as u64));
    assert_eq!(st["mode"].as_u64(), Some(0o750));
    assert_eq!(st["isFile"], true);
    let mtime_ms = std::fs::metadata(f.ws.join("src/app.ts"))
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert_eq!(st["mtime"].as_u64(), Some(mtime_ms));
    // Copies keep permission bits.
    f.ok(
        "fs.copy",
        json!({"source": "src/app.ts", "destination": "bin/app.ts"}),
    )
    .await;
    let mode = std::fs::metadata(f.ws.join("bin/app.ts"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o750);
}

#[tokio::test]
async fn restricted_paths_are_hidden_from_agents() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("secrets")).unwrap();
    std::fs::write(tmp.path().join("secrets/api.key"), "k").unwrap();
    std::fs::write(tmp.path().join("ok.txt"), "fine").unwrap();
    let mut c = config();
    c.security.restricted_paths = vec!["secrets".into()];
    let exec = ultra_commands::build(tmp.path(), c).unwrap();
    let ai = Source::new(SourceKind::Ai);
    let l = exec
        .execute(
            "fs.listDirectory",
            json!({"path": ".", "recursive": true}),
            ai.clone(),
        )
        .await;
    let entries = l.data.unwrap()["entries"].clone();
    assert_eq!(entries.as_array().unwrap().len(), 1, "{entries}");
    assert_eq!(entries[0]["name"], "ok.txt");
    let r = exec
        .execute(
            "fs.readFile",
            json!({"path": "secrets/api.key"}),
            ai.clone(),
        )
        .await;
    assert_eq!(r.error.unwrap().code.as_str(), "RESTRICTED_PATH");
    let r = exec
        .execute(
            "fs.copy",
            json!({"source": "secrets/api.key", "destination": "leak.txt"}),
            ai,
        )
        .await;
    assert_eq!(r.error.unwrap().code.as_str(), "RESTRICTED_PATH");
    assert!(!tmp.path().join("leak.txt").exists());
}
