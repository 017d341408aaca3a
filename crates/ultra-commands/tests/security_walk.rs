//! The `security` settings over the whole registry: for every command and every setting,
//! an agent's call with the command's own example arguments is refused exactly when the
//! command declares it touches what the setting forbids, and with the security error code.
//! Commands that are not refused are not run here (their examples run in `examples.rs`);
//! the settings gate's verdict for them is checked directly.

#![allow(clippy::unwrap_used)]

use serde_json::Value;
use ultra_core::Config;
use ultra_core::command::Touches;
use ultra_core::security::SecurityGate;
use ultra_protocol::{ErrorCode, Source, SourceKind};

fn config(f: impl Fn(&mut Config)) -> Config {
    let mut c = Config::default();
    c.audit.enabled = false;
    f(&mut c);
    c
}

#[tokio::test]
async fn every_command_under_every_setting() {
    let state = tempfile::tempdir().unwrap();
    // SAFETY: the only test in this binary; nothing else reads the environment yet.
    unsafe { std::env::set_var("XDG_STATE_HOME", state.path()) };
    type Denies = fn(&Touches) -> bool;
    type Setting = (&'static str, fn(&mut Config), Denies, ErrorCode);
    let settings: [Setting; 3] = [
        (
            "allowFileSystemAccess: false",
            |c| c.security.allow_file_system_access = false,
            |t| t.files_read || t.files_write,
            ErrorCode::FileAccessDenied,
        ),
        (
            "allowTerminalAccess: false",
            |c| c.security.allow_terminal_access = false,
            |t| t.terminals,
            ErrorCode::AccessDenied,
        ),
        (
            "allowCommandExecution: false",
            |c| c.security.allow_command_execution = false,
            |t| t.processes,
            ErrorCode::AccessDenied,
        ),
    ];
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, set, denies, code) in settings {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(set);
        let gate = SecurityGate::new(&cfg.security);
        let exec = ultra_commands::build(dir.path(), cfg).unwrap();
        let specs: Vec<_> = exec.registry().specs().collect();
        for spec in specs {
            let touches = spec.touches.expect("registration requires a declaration");
            let args: Value = spec
                .examples
                .first()
                .map(|e| serde_json::from_str(e.args).unwrap())
                .unwrap_or_else(|| serde_json::json!({}));
            checked += 1;
            if denies(&touches) {
                let r = exec
                    .execute(spec.id, args, Source::new(SourceKind::Ai))
                    .await;
                match &r.error {
                    Some(e) if e.code == code => {}
                    other => failures.push(format!(
                        "{name}: {} ran or failed otherwise: {other:?}",
                        spec.id
                    )),
                }
                // A person is not held to the settings.
                assert!(gate.check(spec, SourceKind::Human, &[]).is_ok());
            } else if let Err(e) = gate.check(spec, SourceKind::Ai, &[]) {
                failures.push(format!(
                    "{name}: {} refused though it declares {touches:?}: {e:?}",
                    spec.id
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 500, "{checked}");
}

/// What the issue found slipping past, refused now: an agent's `run_command` and
/// `run_tests` with execution off; `git_diff`, the UI's file writes, the shell and search
/// with file access off; restricted programs inside command lines, test and build runs and
/// scripts.
#[tokio::test]
async fn the_reported_bypasses_are_closed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    let ai = || Source::new(SourceKind::Ai);
    let run = |exec: &std::sync::Arc<ultra_core::Executor<ultra_commands::Services>>,
               id: &str,
               args: Value| {
        let exec = exec.clone();
        let id = id.to_string();
        async move { exec.execute(&id, args, ai()).await }
    };
    let denied = |r: &ultra_protocol::CommandResult| {
        r.error
            .as_ref()
            .map(|e| e.code)
            .filter(|c| matches!(c, ErrorCode::AccessDenied | ErrorCode::FileAccessDenied))
    };

    let exec = ultra_commands::build(
        dir.path(),
        config(|c| c.security.allow_command_execution = false),
    )
    .unwrap();
    for (id, args) in [
        ("run_command", serde_json::json!({"command": "git status"})),
        (
            "run_command",
            serde_json::json!({"command": "node --version"}),
        ),
        ("run_tests", serde_json::json!({})),
        ("shell", serde_json::json!({"script": "build"})),
        ("shell.build", serde_json::json!({})),
        ("terminal.create", serde_json::json!({})),
    ] {
        let r = run(&exec, id, args).await;
        assert!(denied(&r).is_some(), "{id}: {:?}", r.error);
    }
    // libgit2 starts no process: git stays available.
    let r = run(&exec, "git_status", serde_json::json!({})).await;
    assert!(denied(&r).is_none(), "{:?}", r.error);

    let exec = ultra_commands::build(
        dir.path(),
        config(|c| c.security.allow_file_system_access = false),
    )
    .unwrap();
    for (id, args) in [
        ("git_diff", serde_json::json!({})),
        (
            "api.call",
            serde_json::json!({"url": "tauri://fs/writeTextFile", "body": {"path": "x", "contents": "y"}}),
        ),
        ("shell", serde_json::json!({"script": "cat Cargo.toml"})),
        ("search.findInFiles", serde_json::json!({"query": "x"})),
        (
            "ultra.getFileContent",
            serde_json::json!({"path": "Cargo.toml"}),
        ),
    ] {
        let r = run(&exec, id, args).await;
        assert_eq!(
            denied(&r),
            Some(ErrorCode::FileAccessDenied),
            "{id}: {:?}",
            r.error
        );
    }

    let exec = ultra_commands::build(
        dir.path(),
        config(|c| {
            c.security.restricted_commands = vec!["npm".into(), "git".into(), "cargo".into()]
        }),
    )
    .unwrap();
    for (id, args) in [
        (
            "run_command",
            serde_json::json!({"command": "npm --version"}),
        ),
        ("run_command", serde_json::json!({"command": "git status"})),
        (
            "run_command",
            serde_json::json!({"command": "ls && git status"}),
        ),
        (
            "run_command",
            serde_json::json!({"command": "ls | xargs git add"}),
        ),
        ("shell", serde_json::json!({"script": "git status"})),
        ("shell", serde_json::json!({"script": "build"})),
        ("run_tests", serde_json::json!({})),
    ] {
        let r = run(&exec, id, args.clone()).await;
        assert_eq!(
            denied(&r),
            Some(ErrorCode::AccessDenied),
            "{id} {args}: {:?}",
            r.error
        );
    }
    let r = run(&exec, "run_command", serde_json::json!({"command": "ls"})).await;
    assert!(denied(&r).is_none(), "{:?}", r.error);
}
