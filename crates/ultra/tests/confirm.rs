//! Confirmations with a real terminal: `ultra serve` runs on a pseudo-terminal whose slave
//! is its controlling tty (so its prompt on /dev/tty reaches us), an `ai` client calls a
//! destructive command, and we answer on the master side like a person would.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{DEADLINE, Ws};
use serde_json::json;

const PROMPT: &str = "Approve? [y/N]";

/// `ultra serve` on a pty. Killed when dropped.
struct PtyServer {
    child: Child,
    master: File,
    screen: Arc<Mutex<String>>,
}

impl PtyServer {
    fn start(ws: &Ws) -> PtyServer {
        let mut master: libc::c_int = -1;
        let mut slave: libc::c_int = -1;
        // SAFETY: openpty writes two fds into the out-pointers; the name, termios and
        // winsize pointers may be null.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both fds were just returned by openpty and are owned by nobody else.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let mut cmd = ws.command();
        cmd.arg("serve")
            .arg("--socket")
            .arg(&ws.sock)
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls (setsid, ioctl) between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                // A new session, with the pty (already on fd 0) as its controlling
                // terminal, so that /dev/tty in the child is our pty.
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("spawn ultra serve on a pty");
        // Close our copies of the slave, so reads on the master end when the child exits.
        drop(cmd);
        let master = File::from(master);
        let screen = Arc::new(Mutex::new(String::new()));
        let mut reader = master.try_clone().unwrap();
        let sink = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the child is gone.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut s = PtyServer {
            child,
            master,
            screen,
        };
        s.wait_for("\nready ", 1);
        assert!(
            s.screen().contains("confirmations: asked here"),
            "the server did not see a terminal:\n{}",
            s.screen()
        );
        s
    }

    fn screen(&self) -> String {
        self.screen.lock().unwrap().clone()
    }

    /// Wait until `text` has appeared `n` times on the terminal.
    fn wait_for(&mut self, text: &str, n: usize) {
        let start = Instant::now();
        while self.screen().matches(text).count() < n {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("ultra serve exited ({status}):\n{}", self.screen());
            }
            assert!(
                start.elapsed() < DEADLINE,
                "`{text}` (x{n}) never appeared:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Type a line, as a person at the terminal.
    fn answer(&mut self, line: &str) {
        self.master.write_all(line.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }
}

impl Drop for PtyServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn delete_request(id: u64, path: &str) -> serde_json::Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "ultra.deleteFile", "params": { "path": path } })
}

/// "y" approves: the parked call runs and the file is gone. "n" denies: the caller gets
/// CONFIRMATION_DENIED and the file stays. An agent cannot approve its own call, even
/// with the real confirmation id.
#[test]
fn a_person_approves_or_denies_on_the_terminal() {
    let ws = Ws::new();
    ws.write("victim1.txt", "one\n");
    ws.write("victim2.txt", "two\n");
    ws.write("victim3.txt", "three\n");
    let mut server = PtyServer::start(&ws);
    let mut events = ws.connect();
    events.ok("subscribe", json!({ "events": ["confirmation.*"] }));
    let mut agent = ws.agent("bot");

    // Approve.
    agent.send(&delete_request(1, "victim1.txt"));
    server.wait_for(PROMPT, 1);
    let screen = server.screen();
    assert!(
        screen.contains("ai (bot) wants to run ultra.deleteFile"),
        "{screen}"
    );
    assert!(screen.contains("victim1.txt"), "{screen}");
    assert!(ws.exists("victim1.txt"), "nothing runs before the answer");
    server.answer("y\n");
    let r = agent.reply();
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["deleted"], true, "{r}");
    assert!(!ws.exists("victim1.txt"));
    let requested = events.wait_event(|e| e["method"] == "confirmation.requested");
    assert_eq!(requested["params"]["data"]["command"], "ultra.deleteFile");
    assert_eq!(requested["params"]["source"]["agentId"], "bot");
    let resolved = events.wait_event(|e| e["method"] == "confirmation.resolved");
    assert_eq!(resolved["params"]["data"]["resolution"], "approved");

    // Deny.
    agent.send(&delete_request(2, "victim2.txt"));
    server.wait_for(PROMPT, 2);
    server.answer("n\n");
    let r = agent.reply();
    assert_eq!(r["error"]["data"]["code"], "CONFIRMATION_DENIED", "{r}");
    assert_eq!(r["error"]["code"], -32006);
    assert_eq!(ws.read("victim2.txt"), "two\n");
    let resolved = events.wait_event(|e| e["method"] == "confirmation.resolved");
    assert_eq!(resolved["params"]["data"]["resolution"], "denied");

    // While a call waits, another agent sees it and tries to approve it: refused.
    agent.send(&delete_request(3, "victim3.txt"));
    server.wait_for(PROMPT, 3);
    let mut accomplice = ws.agent("accomplice");
    let pending = accomplice.ok("ultra.confirm.list", json!({}));
    let id = pending[0]["id"].as_str().expect("a pending id").to_string();
    assert_eq!(pending[0]["command"], "ultra.deleteFile");
    let e = accomplice.err_code(
        "ultra.confirm.approve",
        json!({ "id": id }),
        "SOURCE_NOT_ALLOWED",
    );
    assert_eq!(e["code"], -32001);
    // The agent itself cannot either.
    let mut same = ws.agent("bot");
    same.err_code(
        "ultra.confirm.approve",
        json!({ "id": id }),
        "SOURCE_NOT_ALLOWED",
    );
    assert!(ws.exists("victim3.txt"));
    // Anything but y/yes is a no.
    server.answer("sure\n");
    let r = agent.reply();
    assert_eq!(r["error"]["data"]["code"], "CONFIRMATION_DENIED", "{r}");
    assert_eq!(ws.read("victim3.txt"), "three\n");
    assert_eq!(accomplice.ok("ultra.confirm.list", json!({})), json!([]));
}

/// Nobody answers within `policy.confirmTimeoutMs`: CONFIRMATION_TIMEOUT, nothing deleted.
#[test]
fn an_unanswered_prompt_times_out() {
    let ws = Ws::new();
    ws.write("victim.txt", "keep\n");
    ws.config(json!({ "policy": { "confirmTimeoutMs": 300 } }));
    let mut server = PtyServer::start(&ws);
    let mut agent = ws.agent("bot");
    let started = Instant::now();
    agent.send(&delete_request(1, "victim.txt"));
    server.wait_for(PROMPT, 1);
    let r = agent.reply();
    let waited = started.elapsed();
    assert_eq!(r["error"]["data"]["code"], "CONFIRMATION_TIMEOUT", "{r}");
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    assert_eq!(ws.read("victim.txt"), "keep\n");
    // A late "y" approves nothing.
    server.answer("y\n");
    assert!(
        agent
            .ok("ultra.confirm.list", json!({}))
            .as_array()
            .unwrap()
            .is_empty()
    );
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(ws.read("victim.txt"), "keep\n");
}

/// Without a terminal (stdin from /dev/null) nobody can be asked: CONFIRMATION_REQUIRED at
/// once, nothing deleted. The same in process through the CLI.
#[test]
fn without_a_terminal_asks_fail_at_once() {
    let ws = Ws::new();
    ws.write("victim.txt", "keep\n");
    let server = ws.serve();
    server.wait_stderr("no prompt (asks fail with CONFIRMATION_REQUIRED)");
    let mut agent = ws.agent("bot");
    let started = Instant::now();
    let e = agent.err_code(
        "ultra.deleteFile",
        json!({ "path": "victim.txt" }),
        "CONFIRMATION_REQUIRED",
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(
        e["data"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("ultra serve")
    );
    assert_eq!(ws.read("victim.txt"), "keep\n");
    // Read and write commands are not asked about.
    agent.ok(
        "ultra.createFile",
        json!({ "path": "new.txt", "content": "n\n" }),
    );
    drop(server);

    let out = ws.cli(&[
        "-c",
        "ultra.deleteFile:victim.txt",
        "--agent",
        "bot",
        "--json",
    ]);
    assert_eq!(out.code(), 1);
    assert_eq!(out.json()[0]["error"]["code"], "CONFIRMATION_REQUIRED");
    assert_eq!(ws.read("victim.txt"), "keep\n");
    // The cli source itself is allowed destructive commands by the default policy.
    ws.cli(&["-c", "ultra.deleteFile:victim.txt"]).ok();
    assert!(!ws.exists("victim.txt"));
}

/// Policy from config: `deny` refuses outright, `allow` lets an agent delete without a
/// prompt, per command; a command's rule governs its other names (dialects) too.
#[test]
fn policy_rules_from_config() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    ws.write("b.txt", "b\n");
    ws.config(json!({ "policy": {
        "commands": { "ultra.deleteFile": { "ai": "allow" }, "ultra.renameFile": "deny" }
    } }));
    let _server = ws.serve();
    let mut agent = ws.agent("bot");
    agent.ok("ultra.deleteFile", json!({ "path": "a.txt" }));
    assert!(!ws.exists("a.txt"));
    let e = agent.err_code(
        "ultra.renameFile",
        json!({ "path": "b.txt", "newPath": "c.txt" }),
        "POLICY_DENIED",
    );
    assert_eq!(
        e["data"]["details"]["rule"],
        "policy.commands.ultra.renameFile"
    );
    // The operation's other names are the operation: the rule governs them too.
    for (id, args) in [
        (
            "ultra.moveFile",
            json!({ "path": "b.txt", "newPath": "c.txt" }),
        ),
        (
            "fs.rename",
            json!({ "oldPath": "b.txt", "newPath": "c.txt" }),
        ),
    ] {
        let e = agent.err_code(id, args, "POLICY_DENIED");
        assert_eq!(
            e["data"]["details"]["rule"],
            "policy.commands.ultra.renameFile"
        );
    }
    assert!(ws.exists("b.txt"));
    // A plain ipc client (not ai) is still asked by the default table for deletes.
    ws.connect().err_code(
        "ultra.deleteFile",
        json!({ "path": "b.txt" }),
        "CONFIRMATION_REQUIRED",
    );
}

/// With no person attached, an agent's call that needs approval waits under an id; `ultra
/// approve ID` (at a terminal, shown the diff) lets the agent's next identical call run
/// once; without a terminal it refuses; `ultra deny` drops it.
#[test]
fn a_deferred_call_runs_once_after_ultra_approve() {
    let ws = Ws::new();
    ws.write("src/a.ts", "export const a = 1;\n");
    let _server = ws.serve();
    let mut c = ws.agent("claude");
    let args = json!({"path": "src/a.ts", "start": 1, "end": 1, "content": "export const a = 2;"});
    let e = c.err_code("code.editLines", args.clone(), "CONFIRMATION_REQUIRED");
    let id = e["data"]["details"]["confirmationId"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        e["data"]["suggestion"]
            .as_str()
            .unwrap()
            .contains(&format!("ultra approve {id}")),
        "{e}"
    );
    // The same call again waits under the same id.
    let again = c.err_code("code.editLines", args.clone(), "CONFIRMATION_REQUIRED");
    assert_eq!(again["data"]["details"]["confirmationId"], id.as_str());

    let pending = ws.cli(&["pending"]);
    assert!(
        pending.stdout().contains(&id) && pending.stdout().contains("+export const a = 2;"),
        "{}",
        pending.stdout()
    );

    // No terminal, no approval.
    let mut cmd = ws.command();
    cmd.args(["approve", &id])
        .stdin(Stdio::null())
        .process_group(0);
    unsafe {
        // SAFETY: setsid in the child before exec; no allocation, async-signal-safe.
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let out = common::run_with_deadline(cmd);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(ws.read("src/a.ts"), "export const a = 1;\n");

    // A person at a terminal (a real PTY through script(1)) says yes.
    let bin = ws.command().get_program().to_owned();
    let line = format!("{} approve {id}", bin.to_string_lossy());
    let mut script = std::process::Command::new("script");
    script
        .args(["-qec", &line, "/dev/null"])
        .current_dir(ws.path(""))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in ws.command().get_envs() {
        match v {
            Some(v) => script.env(k, v),
            None => script.env_remove(k),
        };
    }
    let mut child = script.spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"y\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("+export const a = 2;") && text.contains(&format!("approved {id}")),
        "{text}"
    );

    // The identical call now runs, once.
    c.ok("code.editLines", args.clone());
    assert_eq!(ws.read("src/a.ts"), "export const a = 2;\n");
    let e = c.err_code("code.editLines", args, "CONFIRMATION_REQUIRED");
    let next = e["data"]["details"]["confirmationId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(next, id);
    assert!(ws.cli(&["deny", &next]).stdout().contains("denied"));
    assert!(ws.cli(&["pending"]).stdout().contains("nothing is waiting"));
}

/// `ultra serve --confirm` promises a person at a terminal: with none, it will not start.
#[test]
fn serve_confirm_needs_a_terminal() {
    let ws = Ws::new();
    let mut cmd = ws.command();
    cmd.args(["serve", "--confirm", "--socket"])
        .arg(&ws.sock)
        .stdin(Stdio::null());
    unsafe {
        // SAFETY: setsid in the child before exec; async-signal-safe.
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let out = common::run_with_deadline(cmd);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--confirm needs a terminal"));
}

/// Every diff says which two texts it compares: a confirmation's preview goes from the file
/// now to the proposal (`--- current` / `+++ proposed`), a stale caller's diff from the
/// version it expected to the text now (`--- yours` / `+++ current`), and an edit's report
/// from before to after.
#[test]
fn diffs_name_their_sides() {
    let ws = Ws::new();
    ws.write("src/a.ts", "export const a = 1;\n");
    ws.write("b.txt", "one\ntwo\n");
    let _server = ws.serve();

    let mut agent = ws.agent("claude");
    let args = json!({"path": "src/a.ts", "start": 1, "end": 1, "content": "export const a = 2;"});
    let e = agent.err_code("code.editLines", args.clone(), "CONFIRMATION_REQUIRED");
    let preview = e["data"]["details"]["preview"].as_str().unwrap();
    assert!(
        preview.starts_with("--- current\n+++ proposed\n"),
        "{preview}"
    );
    assert!(
        preview.contains("-export const a = 1;\n+export const a = 2;\n"),
        "{preview}"
    );
    assert!(ws.cli(&["pending"]).stdout().contains("+++ proposed"));

    let mut c = ws.connect();
    c.ok("ultra.openFile", json!({ "path": "b.txt" }));
    c.ok(
        "ultra.edit",
        json!({ "path": "b.txt", "range": common::range(1, 0, 1, 3), "text": "TWO", "expectedVersion": 1 }),
    );
    let e = c.err_code(
        "ultra.edit",
        json!({ "path": "b.txt", "range": common::range(0, 0, 0, 3), "text": "ONE", "expectedVersion": 1 }),
        "STALE_VERSION",
    );
    let diff = e["data"]["details"]["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- yours\n+++ current\n"), "{diff}");
    assert!(diff.contains("-two\n+TWO\n"), "{diff}");

    let out = ws.cli(&["-c", "code.editLines", "-a", &args.to_string(), "--json"]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    let output = out.json()[0]["data"]["output"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(output.contains("--- before\n+++ after\n"), "{output}");
    assert!(
        output.contains("-export const a = 1;\n+export const a = 2;\n"),
        "{output}"
    );
}
