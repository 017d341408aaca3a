//! Fuzzing the whole registry, bounded in time: every command is called as an agent with
//! its own examples' arguments mutated (values swapped for hostile ones: huge numbers,
//! negative numbers, long and odd strings, deep and wrong types, paths out of the
//! workspace) and with arbitrary JSON. Whatever comes in, nothing panics (no
//! INTERNAL_ERROR), every failure is a structured error, and nothing is written outside
//! the workspace. Seeded, so a failure reproduces; `ULTRA_FUZZ_SECS` sets the budget.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config as PtConfig, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value, json};
use ultra_core::Config;
use ultra_protocol::{ErrorCode, Source, SourceKind};

/// Values an agent (or an attacker) might send in any slot.
fn hostile() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        Just(json!(u64::MAX)),
        Just(json!(-1)),
        Just(json!(1e308)),
        Just(json!(0)),
        "[a-z./]{0,12}".prop_map(Value::String),
        Just(json!("../../etc/passwd")),
        Just(json!("/etc/passwd")),
        Just(json!(".git/config")),
        Just(json!("a\u{0}b")),
        Just(json!("((((((((((((((((((((")),
        Just(json!("%*d %.99999999f %n %s%s%s")),
        Just(json!("\u{feff}é😀\r\n\t")),
        Just(Value::String("x".repeat(70_000))),
    ];
    leaf.prop_recursive(4, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-zA-Z]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `args` with one slot (chosen by `pick`) replaced by `with`.
fn mutate(args: &Value, pick: usize, with: Value) -> Value {
    let Value::Object(m) = args else {
        return with;
    };
    if m.is_empty() {
        return json!({ "x": with });
    }
    let mut m: Map<String, Value> = m.clone();
    let key = m.keys().nth(pick % m.len()).cloned().unwrap();
    m.insert(key, with);
    Value::Object(m)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_survives_hostile_arguments() {
    let state = tempfile::tempdir().unwrap();
    // SAFETY: the only test in this binary; nothing else reads the environment yet.
    unsafe { std::env::set_var("XDG_STATE_HOME", state.path()) };
    let budget = Duration::from_secs(
        std::env::var("ULTRA_FUZZ_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(40),
    );
    // The workspace sits in a directory of its own beside a sentinel file: `../` paths
    // that escaped would land next to it.
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("ws");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(parent.path().join("sentinel"), "keep").unwrap();
    std::fs::write(root.join("src/app.ts"), "const x = 1;\nconsole.log(x);\n").unwrap();
    std::fs::write(root.join("f.txt"), "b\na\nc\n").unwrap();
    let mut config = Config::default();
    config.audit.enabled = false;
    let exec = ultra_commands::build(&root, config).unwrap();
    let specs: Vec<_> = exec.registry().specs().collect();
    let mut runner = TestRunner::new_with_rng(
        PtConfig::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = hostile();
    let start = Instant::now();
    let (mut calls, mut rounds) = (0usize, 0usize);
    let mut failures = Vec::new();
    'rounds: while start.elapsed() < budget {
        rounds += 1;
        for spec in &specs {
            if start.elapsed() >= budget {
                break 'rounds;
            }
            let base: Value = spec
                .examples
                .first()
                .map(|e| serde_json::from_str(e.args).unwrap())
                .unwrap_or_else(|| json!({}));
            let v = strategy.new_tree(&mut runner).unwrap().current();
            let mut args = if calls % 5 == 0 {
                v
            } else {
                mutate(&base, calls, v)
            };
            // Waiting is what `terminal.wait` is for (30 s by default, up to 10 minutes):
            // keep a valid wait short so the budget goes to other calls.
            if let Some(m) = args.as_object_mut() {
                for key in ["timeoutMs", "timeout"] {
                    let long = match m.get(key) {
                        Some(t) => t.as_f64().is_some_and(|t| t > 1000.0),
                        None => base.get(key).is_some(),
                    };
                    if long {
                        m.insert(key.into(), json!(1000));
                    }
                }
            }
            calls += 1;
            if std::env::var_os("ULTRA_FUZZ_TRACE").is_some() {
                eprintln!(
                    "fuzz call {calls}: {} {}",
                    spec.id,
                    args.to_string().chars().take(200).collect::<String>()
                );
            }
            let r = tokio::time::timeout(
                Duration::from_secs(30),
                exec.execute(spec.id, args.clone(), Source::new(SourceKind::Ai)),
            )
            .await;
            let Ok(r) = r else {
                failures.push(format!("{}: no answer in 30 s to {args}", spec.id));
                continue;
            };
            match &r.error {
                Some(e) if e.code == ErrorCode::InternalError => failures.push(format!(
                    "{}: internal error {} for {args}",
                    spec.id, e.message
                )),
                Some(e) if e.message.is_empty() => failures.push(format!(
                    "{}: an error without a message for {args}",
                    spec.id
                )),
                _ => {}
            }
        }
    }
    // Nothing escaped the workspace: beside it there is still only the sentinel.
    let mut beside: Vec<String> = std::fs::read_dir(parent.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, ["sentinel", "ws"]);
    assert_eq!(
        std::fs::read_to_string(parent.path().join("sentinel")).unwrap(),
        "keep"
    );
    eprintln!(
        "fuzz: {calls} calls over {} commands in {rounds} rounds",
        specs.len()
    );
    assert!(calls >= specs.len(), "only {calls} calls");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
