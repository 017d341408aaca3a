//! Seed 001's `run_command` through the real binary, called by an agent over the socket:
//! allow-listed lines run as argv with `&&`, `||` and `|`, denied ones are refused without
//! asking anyone, the rest wait for a person (here: no one, so CONFIRMATION_REQUIRED with
//! the argv); a timeout kills the whole process group; the environment is scrubbed; output
//! is capped; a config rule whose examples contradict it stops the server at start.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::Stdio;
use std::time::Duration;

use common::{Server, Ws};
use serde_json::json;

fn rule(program: &str, example: &str) -> serde_json::Value {
    json!({"program": program, "match": [example]})
}

fn workspace() -> Ws {
    let ws = Ws::new();
    ws.config(json!({"run": {
        "allow": [
            rule("echo", "echo hi"), rule("tr", "tr a b"), rule("true", "true"),
            rule("false", "false"), rule("sleep", "sleep 1"), rule("seq", "seq 3"),
            rule("env", "env"), rule("sh", "sh script.sh"),
            rule("no-such-program-xyz", "no-such-program-xyz"),
        ],
        "maxOutputBytes": 1000,
    }}));
    ws.write("src/a.ts", "export const a = 1;\n");
    ws
}

fn serve(ws: &Ws) -> Server {
    let mut cmd = ws.command();
    cmd.arg("serve")
        .arg("--socket")
        .arg(&ws.sock)
        .env("ULTRA_TEST_SECRET", "hunter2")
        .env("LD_PRELOAD", "")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    Server::spawn(cmd, ws.sock.clone())
}

/// Processes whose command line contains `needle`.
fn running(needle: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter(|e| {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            String::from_utf8_lossy(&cmd)
                .replace('\0', " ")
                .contains(needle)
                && !stat.contains(") Z ")
        })
        .count()
}

#[test]
fn allowed_lines_run_as_argv_with_their_operators() {
    let ws = workspace();
    let _server = serve(&ws);
    let mut c = ws.agent("claude");
    let r = c.ok("run.command", json!({"command": "echo hello | tr a-z A-Z"}));
    assert_eq!(r["stdout"], "HELLO\n", "{r}");
    assert_eq!(r["exitCode"], 0);
    assert!(r["duration"].is_u64());
    let r = c.ok(
        "run.command",
        json!({"command": "false || echo fallback; echo next"}),
    );
    assert_eq!(r["stdout"], "fallback\nnext\n", "{r}");
    let r = c.ok("run.command", json!({"command": "true && false"}));
    assert_eq!(r["exitCode"], 1, "{r}");
    // Quotes are words, not shell: `$HOME` in single quotes reaches echo as is.
    let r = c.ok("run.command", json!({"command": "echo 'a  b' \"c\""}));
    assert_eq!(r["stdout"], "a  b c\n", "{r}");
    // The environment is scrubbed: the server's secrets and loader variables are gone.
    let r = c.ok("run.command", json!({"command": "env"}));
    let env = r["stdout"].as_str().unwrap();
    assert!(
        !env.contains("hunter2") && !env.contains("LD_PRELOAD"),
        "{env}"
    );
    assert!(env.contains("PATH=") && env.contains("TERM=dumb"), "{env}");
    // Output is capped.
    let r = c.ok("run.command", json!({"command": "seq 1 100000"}));
    assert_eq!(
        r["truncated"],
        true,
        "{}",
        r["stdout"].as_str().unwrap().len()
    );
    assert!(r["stdout"].as_str().unwrap().len() <= 1000);
    // A missing program is a clear error.
    let e = c.err_code(
        "run.command",
        json!({"command": "echo ok && no-such-program-xyz"}),
        "FILE_NOT_FOUND",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("no-such-program-xyz"),
        "{e}"
    );
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let ws = workspace();
    ws.write("script.sh", "sleep 31337 &\nsleep 31337\n");
    let _server = serve(&ws);
    let mut c = ws.agent("claude");
    let started = std::time::Instant::now();
    let r = c.ok(
        "run.command",
        json!({"command": "sh script.sh", "timeout": 500}),
    );
    assert_eq!(r["timedOut"], true, "{r}");
    assert_eq!(r["exitCode"], -1);
    assert!(started.elapsed() < Duration::from_secs(5));
    // Both sleeps, the background one included, are gone.
    let t = std::time::Instant::now();
    while running("sleep 31337") > 0 {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "sleep 31337 still runs"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn denied_lines_are_refused_and_others_wait_for_a_person() {
    let ws = workspace();
    let _server = serve(&ws);
    let mut c = ws.agent("claude");
    for line in [
        "rm -rf src",
        "echo hi; rm -rf src",
        "echo hi && /bin/rm -r src",
        "env rm -rf src",
        "echo $(rm -rf src)",
        "LD_PRELOAD=x echo hi",
        "echo hi > src/a.ts",
        "git push --force",
    ] {
        let e = c.err_code("run.command", json!({"command": line}), "POLICY_DENIED");
        assert!(e["message"].as_str().unwrap().contains("refuses"), "{e}");
    }
    assert_eq!(ws.read("src/a.ts"), "export const a = 1;\n");
    let e = c.err_code(
        "run.command",
        json!({"command": "ls -la src"}),
        "CONFIRMATION_REQUIRED",
    );
    let preview = e["data"]["details"]["preview"].as_str().unwrap();
    assert!(preview.contains(r#"["ls", "-la", "src"]"#), "{preview}");
    let audit = ws.audit_text();
    assert!(audit.contains("POLICY_DENIED"), "{audit}");
}

#[test]
fn a_rule_that_contradicts_its_examples_stops_the_server() {
    let ws = Ws::new();
    ws.config(json!({"run": {"deny": [
        {"program": "rm", "flags": ["-r"], "match": ["rm x"]}
    ]}}));
    let out = ws.cli(&["-c", "run.command", "-a", r#"{"command": "echo hi"}"#]);
    assert_eq!(out.code(), 2, "{}", out.stderr());
    assert!(
        out.stderr().contains("run.deny[0]") && out.stderr().contains("`rm x`"),
        "{}",
        out.stderr()
    );
}

/// The real toolchain homes (the tests give the server a private HOME).
fn toolchain_env(cmd: &mut std::process::Command) {
    let home = std::env::var("HOME").unwrap_or_default();
    let cargo = std::env::var("CARGO_HOME").unwrap_or(format!("{home}/.cargo"));
    let rustup = std::env::var("RUSTUP_HOME").unwrap_or(format!("{home}/.rustup"));
    cmd.env("CARGO_HOME", cargo).env("RUSTUP_HOME", rustup);
}

fn serve_with_toolchains(ws: &Ws) -> Server {
    let mut cmd = ws.command();
    cmd.arg("serve")
        .arg("--socket")
        .arg(&ws.sock)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    toolchain_env(&mut cmd);
    Server::spawn(cmd, ws.sock.clone())
}

/// `run_tests` on real projects: a cargo crate (stats from `test result:` lines, a filter,
/// a failing test), an npm script, and a pytest suite.
#[test]
fn run_tests_finds_the_runner_and_reads_its_summary() {
    let ws = Ws::new();
    ws.write(
        "Cargo.toml",
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    ws.write(
        "src/lib.rs",
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn login_works() {}\n    #[test]\n    fn logout_works() {}\n    #[test]\n    #[ignore]\n    fn slow() {}\n    #[test]\n    fn login_fails() { assert_eq!(1, 2); }\n}\n",
    );
    let _server = serve_with_toolchains(&ws);
    let mut c = ws.agent("claude");
    let r = c.ok("run.tests", json!({}));
    assert_eq!(r["runner"], "cargo", "{r}");
    assert_eq!(r["passed"], false, "{}", r["output"]);
    assert_eq!(
        r["stats"],
        json!({"total": 4, "passed": 2, "failed": 1, "skipped": 1}),
        "{}",
        r["output"]
    );
    let r = c.ok("run.tests", json!({"filter": "logout"}));
    assert_eq!(r["passed"], true, "{}", r["output"]);
    assert_eq!(r["command"], json!(["cargo", "test", "logout"]));
    assert_eq!(r["stats"]["passed"], 1);
}

#[test]
fn run_tests_runs_npm_and_pytest_projects() {
    let npm = Ws::new();
    npm.write(
        "package.json",
        r#"{"name": "fixture", "version": "1.0.0", "scripts": {"test": "node test.js"}}"#,
    );
    npm.write("test.js", "console.log('all good'); process.exit(0);\n");
    let _server = serve_with_toolchains(&npm);
    let mut c = npm.agent("claude");
    let r = c.ok("run.tests", json!({}));
    assert_eq!(r["runner"], "npm", "{r}");
    assert_eq!(r["passed"], true, "{}", r["output"]);
    assert!(r["output"].as_str().unwrap().contains("all good"), "{r}");

    let py = Ws::new();
    py.write("pytest.ini", "[pytest]\n");
    py.write(
        "test_app.py",
        "import pytest\n\ndef test_login():\n    assert True\n\ndef test_logout():\n    assert 1 == 2\n\n@pytest.mark.skip\ndef test_later():\n    pass\n",
    );
    let _server = serve_with_toolchains(&py);
    let mut c = py.agent("claude");
    let r = c.ok("run.tests", json!({}));
    assert_eq!(r["runner"], "pytest", "{r}");
    assert_eq!(
        r["stats"],
        json!({"total": 3, "passed": 1, "failed": 1, "skipped": 1}),
        "{}",
        r["output"]
    );
    let r = c.ok("run.tests", json!({"filter": "login"}));
    assert_eq!(r["passed"], true, "{}", r["output"]);
}

/// `build` (seed 004's dual mode): an agent builds a cargo crate through the shell, its
/// output pipes, a broken build fails with the compiler's status and errors, and the
/// typed tool runs an npm build script; arguments that do not apply are refused.
#[test]
fn build_runs_the_projects_build_from_the_shell_and_as_a_tool() {
    let ws = Ws::new();
    ws.write(
        "Cargo.toml",
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    ws.write("src/lib.rs", "pub fn one() -> i32 { 1 }\n");
    let _server = serve_with_toolchains(&ws);
    let mut c = ws.agent("claude");
    let r = c.ok(
        "ultra.shell.run",
        json!({"script": "build 2>&1 | grep -o 'Compiling fixture'"}),
    );
    assert_eq!(r["exitCode"], 0, "{r}");
    assert_eq!(r["stdout"], "Compiling fixture\n", "{r}");
    assert!(ws.path("target/debug/libfixture.rlib").exists());

    ws.write("src/lib.rs", "pub fn one() -> i32 { \"one\" }\n");
    let r = c.ok("ultra.shell.run", json!({"script": "build"}));
    assert_eq!(r["exitCode"], 101, "{r}");
    let err = r["stderr"].as_str().unwrap();
    assert!(err.contains("error[E0308]"), "{err}");
    assert!(err.contains("build: `cargo build` exited 101"), "{err}");

    // Cleaning deletes output, so an agent's `build --clean` waits for a person.
    c.err_code(
        "shell.build",
        json!({"clean": true}),
        "CONFIRMATION_REQUIRED",
    );
    c.err_code("shell.build", json!({"timeout": 0}), "INVALID_ARGUMENTS");
    let r = c.ok("ultra.shell.run", json!({"script": "build extra-word"}));
    assert_eq!(r["exitCode"], 1, "{r}");
    assert!(
        r["stderr"].as_str().unwrap().contains("invalid_arguments"),
        "{r}"
    );

    let npm = Ws::new();
    npm.write(
        "package.json",
        r#"{"name": "fixture", "version": "1.0.0", "scripts": {"build": "node build.js"}}"#,
    );
    npm.write(
        "build.js",
        "require('fs').writeFileSync('dist.txt', 'built'); console.log('done');\n",
    );
    let _server = serve_with_toolchains(&npm);
    let mut c = npm.agent("claude");
    let r = c.ok("shell.build", json!({}));
    assert_eq!(r["exitCode"], 0, "{r}");
    assert!(r["stdout"].as_str().unwrap().contains("done"), "{r}");
    assert_eq!(
        std::fs::read_to_string(npm.path("dist.txt")).unwrap(),
        "built"
    );
    let r = c.ok("shell.build", json!({"release": true}));
    assert_eq!(r["exitCode"], 2, "{r}");
    assert!(
        r["stderr"].as_str().unwrap().contains("Cargo projects"),
        "{r}"
    );
}

/// `run_tests` with `watch`: the first run answers at once with a watch id; a source change
/// runs the tests again in the background, announced as `tests.started`/`tests.finished`
/// events; build output and ignored files do not; `test_watches` shows the latest run and
/// `stop_test_watch` ends it.
#[test]
fn run_tests_watch_reruns_on_source_changes() {
    let ws = Ws::new();
    ws.write(
        "Cargo.toml",
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    ws.write(".gitignore", "*.log\n");
    ws.write(
        "src/lib.rs",
        "pub fn two() -> i32 { 2 }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn two_is_two() { assert_eq!(super::two(), 2); }\n}\n",
    );
    let _server = serve_with_toolchains(&ws);
    let mut events = ws.connect();
    events.identify(json!({"source": "ai", "agentId": "claude", "sessionId": "w1"}));
    events.ok("subscribe", json!({"events": ["tests.*"]}));
    let mut c = ws.connect();
    c.identify(json!({"source": "ai", "agentId": "claude", "sessionId": "w1"}));

    let r = c.ok("run.tests", json!({"watch": true}));
    assert_eq!(r["passed"], true, "{}", r["output"]);
    let id = r["watchId"].as_str().unwrap().to_string();
    // Asking again for the same tests in the same session keeps the one watch.
    let again = c.ok("run.tests", json!({"watch": true}));
    assert_eq!(again["watchId"], id.as_str());

    ws.write(
        "src/lib.rs",
        "pub fn two() -> i32 { 3 }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn two_is_two() { assert_eq!(super::two(), 2); }\n}\n",
    );
    let started = events.wait_event(|e| e["method"] == "tests.started");
    let data = &started["params"]["data"];
    assert_eq!(data["watchId"], id.as_str(), "{started}");
    assert_eq!(data["changed"], json!(["src/lib.rs"]), "{started}");
    assert_eq!(started["params"]["source"]["agentId"], "claude");
    let finished = events.wait_event(|e| e["method"] == "tests.finished");
    let data = &finished["params"]["data"];
    assert_eq!(data["passed"], false, "{finished}");
    assert_eq!(
        data["stats"],
        json!({"total": 1, "passed": 0, "failed": 1, "skipped": 0}),
        "{finished}"
    );
    assert!(
        data["output"].as_str().unwrap().contains("two_is_two"),
        "{finished}"
    );

    let list = c.ok("run.testWatches", json!({}));
    assert_eq!(list[0]["id"], id.as_str(), "{list}");
    assert_eq!(list[0]["runs"], 2, "{list}");
    assert_eq!(list[0]["last"]["passed"], false, "{list}");

    // Build output, ignored files and Ultra's temp files start nothing.
    ws.write("target/debug/extra.rs", "x");
    ws.write("run.log", "x");
    assert!(
        events
            .try_event(Duration::from_millis(1500), |e| e["method"]
                == "tests.started")
            .is_none(),
        "a non-source change started a run"
    );

    c.ok("run.stopTestWatch", json!({"id": id}));
    assert_eq!(c.ok("run.testWatches", json!({})), json!([]));
    c.err_code("run.stopTestWatch", json!({"id": id}), "WATCH_NOT_FOUND");
    ws.write("src/lib.rs", "pub fn two() -> i32 { 2 }\n");
    assert!(
        events
            .try_event(Duration::from_millis(1500), |e| e["method"]
                == "tests.started")
            .is_none(),
        "a stopped watch ran"
    );
}

/// A watch belongs to the session that started it: when that WebSocket session ends, the
/// watch ends and the run in progress is killed with its process group.
#[test]
fn a_watch_ends_with_its_session_and_kills_its_run() {
    use common::wsc;
    let ws = wsc::workspace(json!({}));
    ws.write(
        "package.json",
        r#"{"name": "fixture", "version": "1.0.0", "scripts": {"test": "node watch-slow-test.js"}}"#,
    );
    ws.write(
        "watch-slow-test.js",
        "if (require('fs').existsSync('slow.flag')) setTimeout(() => {}, 120000);\nconsole.log('ok');\n",
    );
    let server = serve_with_toolchains(&ws);
    let url = wsc::url(&server);
    let rt = wsc::rt();
    rt.block_on(async {
        let mut s = wsc::authenticated(&url).await;
        let mut notes = Vec::new();
        let r = wsc::call(&mut s, 1, "run.tests", json!({"watch": true}), &mut notes).await;
        assert_eq!(r["result"]["passed"], true, "{r}");
        ws.write("slow.flag", "");
        common::wait_until("the slow run starts", || running("watch-slow-test.js") > 0);
        let mut ipc = ws.agent("observer");
        let list = ipc.ok("run.testWatches", json!({}));
        assert_eq!(list[0]["running"], true, "{list}");
        drop(s);
        common::wait_until("the run is killed", || running("watch-slow-test.js") == 0);
        common::wait_until("the watch is gone", || {
            ipc.ok("run.testWatches", json!({})) == json!([])
        });
    });
}

/// The probe the sandbox tests run as the project's "tests": it writes inside and outside
/// the workspace and into its temp dir, and opens a TCP connection, printing what happened.
const PROBE: &str = r#"
const fs = require('fs');
const path = require('path');
const os = require('os');
const out = process.argv[2];
const tryIt = (name, f) => { try { f(); console.log(name + ':ok'); } catch (e) { console.log(name + ':' + e.code); } };
tryIt('inside', () => fs.writeFileSync('inside.txt', 'x'));
tryIt('outside', () => fs.writeFileSync(out, 'x'));
tryIt('tmp', () => fs.writeFileSync(path.join(os.tmpdir(), 'scratch.txt'), 'x'));
const s = require('net').connect(9, '127.0.0.1');
s.on('error', (e) => { console.log('net:' + e.code); });
s.on('connect', () => { console.log('net:connected'); s.destroy(); });
"#;

fn probe_project(ws: &Ws) {
    let outside = ws.base().join("outside.txt");
    ws.write(
        "package.json",
        &json!({"name": "fixture", "version": "1.0.0",
                "scripts": {"test": format!("node probe.js {}", outside.display())}})
        .to_string(),
    );
    ws.write("probe.js", PROBE);
}

/// security.md C7 and C9: code an agent runs without a person (tests, builds, allow-listed
/// lines such as `npm test`) runs in the sandbox: it writes in the workspace and its own
/// temp dir, but not beside the workspace, and opens no network connection. A person's
/// approved run is not confined.
#[test]
fn agents_project_code_runs_in_the_sandbox() {
    let ws = Ws::new();
    probe_project(&ws);
    let _server = serve_with_toolchains(&ws);
    let mut c = ws.agent("claude");
    let r = c.ok("run.tests", json!({}));
    let out = r["output"].as_str().unwrap();
    assert_eq!(r["sandboxed"], true, "{r}");
    for line in ["inside:ok", "outside:EACCES", "tmp:ok", "net:EACCES"] {
        assert!(out.contains(line), "{line} in {out}");
    }
    assert!(ws.exists("inside.txt"));
    assert!(!ws.base().join("outside.txt").exists());

    // `npm test` is on seed 001's allow list: it runs unasked, and confined.
    let r = c.ok("run.command", json!({"command": "npm test"}));
    assert_eq!(r["sandboxed"], true, "{r}");
    assert!(r["stdout"].as_str().unwrap().contains("net:EACCES"), "{r}");
    assert!(!ws.base().join("outside.txt").exists());

    // The shell's `build` too.
    ws.write(
        "package.json",
        &json!({"name": "fixture", "version": "1.0.0",
                "scripts": {"build": format!("node probe.js {}", ws.base().join("outside.txt").display())}})
        .to_string(),
    );
    let r = c.ok("ultra.shell.run", json!({"script": "build"}));
    let text = r["stdout"].as_str().unwrap();
    assert!(
        text.contains("outside:EACCES") && text.contains("net:EACCES"),
        "{r}"
    );
    assert!(r["stderr"].as_str().unwrap().contains("(sandboxed"), "{r}");
}

/// With the sandbox turned off in the config, agents' test runs, builds and allow-listed
/// lines wait for a person instead.
#[test]
fn without_the_sandbox_agents_code_runs_wait_for_a_person() {
    let ws = Ws::new();
    ws.config(json!({"run": {"sandbox": false}}));
    probe_project(&ws);
    let _server = serve_with_toolchains(&ws);
    let mut c = ws.agent("claude");
    c.err_code("run.tests", json!({}), "CONFIRMATION_REQUIRED");
    c.err_code(
        "run.command",
        json!({"command": "npm test"}),
        "CONFIRMATION_REQUIRED",
    );
    c.err_code(
        "ultra.shell.run",
        json!({"script": "build"}),
        "CONFIRMATION_REQUIRED",
    );
    assert!(!ws.exists("inside.txt"));
}

/// A typed `grep` whose output is cut at the cap found matches: status 0, with a note
/// saying the output was capped and how to see the rest (issue 23). A script stopped by
/// the cap keeps its non-zero status, with the same note.
#[test]
fn capped_output_is_a_note_not_a_failure() {
    let ws = Ws::new();
    for i in 0..40 {
        ws.write(
            &format!("logs/f{i}.txt"),
            &"match line here with some text\n".repeat(100),
        );
    }
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let r = c.ok(
        "shell.grep",
        json!({"pattern": "match", "paths": ["logs"], "recursive": true}),
    );
    assert_eq!(r["truncated"], true, "{r}");
    assert_eq!(r["exitCode"], 0, "{r}");
    assert_eq!(r["errors"][0]["code"], "output_capped", "{r}");
    assert_eq!(r["stdout"].as_str().unwrap().len(), 64 * 1024);
    // Under the cap: no note.
    let r = c.ok(
        "shell.grep",
        json!({"pattern": "match", "paths": ["logs/f1.txt"]}),
    );
    assert_eq!(r["truncated"], false, "{r}");
    assert!(r.get("errors").is_none(), "{r}");
    let r = c.ok(
        "ultra.shell.run",
        json!({"script": "grep -r match logs", "maxOutput": 1000}),
    );
    assert_ne!(r["exitCode"], 0, "{r}");
    assert_eq!(r["errors"][0]["code"], "output_capped", "{r}");
}
