//! Every command's examples run as tests, against a fresh workspace in a temp dir.
//!
//! An example passes when its setup commands succeed and the command either returns data
//! containing `expect` (objects match by subset, arrays by ordered subsequence, `[]` only
//! matches `[]`) or fails with the declared error code. A command with no example fails.

#![allow(clippy::unwrap_used)]

use serde_json::Value;
use ultra_core::Config;
use ultra_protocol::{Source, SourceKind};

fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => e
            .iter()
            .all(|(k, ev)| a.get(k).is_some_and(|av| contains(av, ev))),
        (Value::Array(a), Value::Array(e)) => {
            if e.is_empty() {
                return a.is_empty();
            }
            let mut it = a.iter();
            e.iter().all(|ev| it.any(|av| contains(av, ev)))
        }
        _ => actual == expected,
    }
}

/// Equal but for the numbers, which a second call may count or time differently (files
/// refreshed, seconds taken).
fn alike(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && alike(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| alike(a, b))
        }
        (Value::Number(_), Value::Number(_)) => true,
        _ => a == b,
    }
}

fn config() -> Config {
    let mut c = Config::default();
    c.audit.enabled = false;
    // Examples answer the same on every machine: no language server found on PATH joins in.
    for language in ["python", "typescript", "rust", "go", "c"] {
        c.lsp.insert(
            language.into(),
            ultra_core::config::LspServerConfig {
                enabled: Some(false),
                ..Default::default()
            },
        );
    }
    c
}

#[tokio::test]
async fn every_command_has_examples_and_they_pass() {
    // State (the index, the UI journal) goes to a temp dir, not the user's home.
    let state = tempfile::tempdir().unwrap();
    // SAFETY: the only test in this binary; nothing else reads the environment yet.
    unsafe { std::env::set_var("XDG_STATE_HOME", state.path()) };
    let probe = tempfile::tempdir().unwrap();
    let exec = ultra_commands::build(probe.path(), config()).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for spec in exec.registry().specs() {
        if spec.examples.is_empty() {
            failures.push(format!("{}: has no example", spec.id));
        }
        for ex in spec.examples {
            count += 1;
            let dir = tempfile::tempdir().unwrap();
            for (path, content) in ex.files {
                let p = dir.path().join(path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, content).unwrap();
            }
            let exec = ultra_commands::build(dir.path(), config()).unwrap();
            let human = Source::new(SourceKind::Human);
            let mut setup_ok = true;
            for (id, args) in ex.setup {
                let args: Value = serde_json::from_str(args)
                    .unwrap_or_else(|e| panic!("{}: setup args: {e}", spec.id));
                let r = exec.execute(id, args, human.clone()).await;
                if !r.success {
                    failures.push(format!(
                        "{} / {}: setup {id} failed: {:?}",
                        spec.id, ex.description, r.error
                    ));
                    setup_ok = false;
                    break;
                }
            }
            if !setup_ok {
                continue;
            }
            let args: Value = serde_json::from_str(ex.args)
                .unwrap_or_else(|e| panic!("{}: example args: {e}", spec.id));
            let source = Source::new(ex.source.unwrap_or(SourceKind::Human));
            let r = exec.execute(spec.id, args.clone(), source.clone()).await;
            // A read asked again, its data as JSON text (as the socket and the WebSocket
            // run calls), answers the same.
            // Not for live output (terminals, processes): asked again, it has moved on.
            let live = spec.touches.is_some_and(|t| t.terminals || t.processes);
            if spec.annotations.read_only && r.success && !live {
                let again = exec.execute_text(spec.id, args, source).await;
                let text = again
                    .text
                    .map(|t| serde_json::from_str::<Value>(t.get()).unwrap());
                let text = text.or(again.result.data).unwrap_or(Value::Null);
                if !alike(&text, r.data.as_ref().unwrap_or(&Value::Null)) {
                    failures.push(format!(
                        "{} / {}: its data as text differs: {:?} against {:?}",
                        spec.id, ex.description, text, r.data
                    ));
                }
            }
            match (ex.error, &r.error) {
                (Some(code), Some(err)) if err.code.as_str() == code => {}
                (Some(code), _) => failures.push(format!(
                    "{} / {}: expected error {code}, got {:?} {:?}",
                    spec.id, ex.description, r.error, r.data
                )),
                (None, Some(err)) => {
                    failures.push(format!("{} / {}: failed: {err:?}", spec.id, ex.description))
                }
                (None, None) => {
                    if let Some(expect) = ex.expect {
                        let expect: Value = serde_json::from_str(expect)
                            .unwrap_or_else(|e| panic!("{}: expect: {e}", spec.id));
                        let data = r.data.clone().unwrap_or(Value::Null);
                        if !contains(&data, &expect) {
                            failures.push(format!(
                                "{} / {}: data {data} does not contain {expect}",
                                spec.id, ex.description
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(count > 20, "only {count} examples ran");
    assert!(
        failures.is_empty(),
        "{} example failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
