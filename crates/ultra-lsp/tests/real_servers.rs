//! The client against real language servers (pyright, typescript-language-server with
//! TypeScript), installed from the npm registry into `tests/servers/` by `.ci/run`
//! (`npm ci` there; the tests run it themselves when they are absent). A type error comes back as a diagnostic with its code and range,
//! a fix clears it, and a server killed mid-session is reported as gone.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use ultra_lsp::{Client, LspError, ServerSpec};

fn servers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/node_modules/.bin")
}

/// A server from `tests/servers/`, installed there from the lock file (`npm ci`) unless
/// it already is: `.ci/run` installs them first, and `cargo test` works without it.
fn server(name: &str, language: &str, args: &[&str]) -> ServerSpec {
    static INSTALLING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let bin = servers().join(name);
    {
        let _one = INSTALLING.lock().unwrap_or_else(|p| p.into_inner());
        if !bin.exists() {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers");
            let ci = std::process::Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&dir)
                .output()
                .expect("npm runs");
            assert!(
                ci.status.success(),
                "npm ci in {}: {}",
                dir.display(),
                String::from_utf8_lossy(&ci.stderr)
            );
        }
    }
    assert!(bin.exists(), "{} is missing after npm ci", bin.display());
    ServerSpec {
        language: language.into(),
        command: bin.to_string_lossy().into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        initialization_options: None,
    }
}

const WAIT: Duration = Duration::from_secs(60);

fn codes(d: &ultra_lsp::Published) -> Vec<String> {
    d.diagnostics
        .iter()
        .map(|x| match &x["code"] {
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        })
        .collect()
}

#[test]
fn pyright_reports_a_type_error_and_its_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let file = root.join("app.py");
    let bad = "def f(n: int) -> int:\n    return n\n\nx: int = f(\"s\")\n";
    std::fs::write(&file, bad).unwrap();
    let c = Client::start(&server("pyright-langserver", "python", &["--stdio"]), &root).unwrap();
    let before = c.generation();
    c.open(&file, "python", bad).unwrap();
    let d = c
        .wait_diagnostics(&file, before, Some(1), WAIT)
        .expect("pyright published for app.py");
    assert_eq!(codes(&d), ["reportArgumentType"], "{:?}", d.diagnostics);
    let diag = &d.diagnostics[0];
    assert_eq!(diag["severity"], 1, "an error: {diag}");
    assert_eq!(diag["range"]["start"]["line"], 3, "{diag}");
    // The column is in the server's encoding: `"s"` starts at byte 11 of the line.
    let col = diag["range"]["start"]["character"].as_u64().unwrap() as u32;
    assert_eq!(c.encoding().byte("x: int = f(\"s\")", col), 11, "{diag}");

    let before = c.generation();
    let version = c
        .change(
            &file,
            "def f(n: int) -> int:\n    return n\n\nx: int = f(1)\n",
        )
        .unwrap();
    let d = c
        .wait_diagnostics(&file, before, Some(version), WAIT)
        .expect("pyright published again after the fix");
    assert!(d.diagnostics.is_empty(), "{:?}", d.diagnostics);

    // A hover answers through the same connection.
    let hover = c
        .request(
            "textDocument/hover",
            serde_json::json!({
                "textDocument": { "uri": ultra_lsp::uri::from_path(&file) },
                "position": { "line": 3, "character": 9 }
            }),
        )
        .unwrap();
    assert!(hover["contents"].to_string().contains("int"), "{hover}");
}

#[test]
fn typescript_language_server_reports_ts2322() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::write(
        root.join("tsconfig.json"),
        r#"{"compilerOptions":{"strict":true}}"#,
    )
    .unwrap();
    let file = root.join("main.ts");
    let text = "const s = \"é\"; let n: number = s;\n";
    std::fs::write(&file, text).unwrap();
    let c = Client::start(
        &server("typescript-language-server", "typescript", &["--stdio"]),
        &root,
    )
    .unwrap();
    let before = c.generation();
    c.open(&file, "typescript", text).unwrap();
    // tsserver may publish an empty list first, while it loads the project.
    let mut after = before;
    let d = loop {
        let d = c
            .wait_diagnostics(&file, after, None, WAIT)
            .expect("typescript-language-server published for main.ts");
        if !d.diagnostics.is_empty() {
            break d;
        }
        after = d.generation;
    };
    assert_eq!(codes(&d), ["2322"], "{:?}", d.diagnostics);
    // `n` sits after a non-ASCII character: the column is in the negotiated encoding.
    let col = d.diagnostics[0]["range"]["start"]["character"]
        .as_u64()
        .unwrap() as u32;
    let line = text.lines().next().unwrap();
    assert_eq!(
        c.encoding().byte(line, col),
        line.find("n:").unwrap(),
        "{:?}",
        d.diagnostics
    );
}

#[test]
fn a_killed_server_is_reported_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let c = Client::start(&server("pyright-langserver", "python", &["--stdio"]), &root).unwrap();
    assert!(c.alive());
    c.kill();
    let start = std::time::Instant::now();
    while c.alive() {
        assert!(start.elapsed() < WAIT, "the client never noticed");
        std::thread::sleep(Duration::from_millis(10));
    }
    let e = c
        .request("textDocument/hover", serde_json::json!({}))
        .unwrap_err();
    assert!(matches!(e, LspError::Exited { .. }), "{e}");
}

#[test]
fn a_missing_server_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = ServerSpec {
        language: "python".into(),
        command: "no-such-language-server-xyz".into(),
        args: vec![],
        initialization_options: None,
    };
    let e = Client::start(&spec, tmp.path())
        .err()
        .expect("no such server");
    assert!(e.to_string().contains("no-such-language-server-xyz"), "{e}");
}

#[test]
fn a_server_that_exits_at_once_fails_fast() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = ServerSpec {
        language: "python".into(),
        command: "sh".into(),
        args: vec!["-c".into(), "echo 'no such toolchain' >&2; exit 1".into()],
        initialization_options: None,
    };
    for _ in 0..20 {
        let start = std::time::Instant::now();
        let e = Client::start(&spec, tmp.path()).err().expect("it exits");
        assert!(start.elapsed() < Duration::from_secs(5), "{e}");
        assert!(
            matches!(e, LspError::Exited { .. } | LspError::Io(_)),
            "{e}"
        );
    }
}

#[test]
fn an_idle_server_is_stopped_and_started_again_when_needed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let file = root.join("app.py");
    let text = "x: int = \"s\"\n";
    std::fs::write(&file, text).unwrap();
    let spec = server("pyright-langserver", "python", &["--stdio"]);
    let mut cfg = std::collections::BTreeMap::new();
    cfg.insert(
        "python".to_string(),
        ultra_lsp::ServerConfig {
            command: Some(spec.command.clone()),
            args: Some(spec.args.clone()),
            ..Default::default()
        },
    );
    let servers = ultra_lsp::Servers::new(&root, &cfg);
    let python = |s: &ultra_lsp::Servers| {
        s.status()
            .into_iter()
            .find(|x| x.language == "python")
            .unwrap()
    };
    let (_, p) = servers.diagnostics(&file, text, WAIT).unwrap();
    assert_eq!(codes(&p.unwrap()), ["reportAssignmentType"]);
    let pid = python(&servers).pid.unwrap();
    assert_eq!(servers.stop_idle(Duration::from_secs(3600)), 0, "just used");
    assert_eq!(servers.stop_idle(Duration::ZERO), 1);
    let st = python(&servers);
    assert_eq!(st.state, ultra_lsp::State::Idle, "{st:?}");
    assert_eq!((st.pid, st.open_documents), (None, 0), "{st:?}");
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.contains(") Z")),
        "the server process is gone"
    );
    // The next question starts it again; that is not a restart after a death.
    let (_, p) = servers.diagnostics(&file, text, WAIT).unwrap();
    assert_eq!(codes(&p.unwrap()), ["reportAssignmentType"]);
    let st = python(&servers);
    assert_eq!(
        (&st.state, st.restarts),
        (&ultra_lsp::State::Running, 0),
        "{st:?}"
    );
}
