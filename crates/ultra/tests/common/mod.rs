//! Shared fixtures for the black-box tests: a workspace in a temp dir, the real `ultra`
//! binary run as a CLI or as `ultra serve` on a socket inside that temp dir, and a raw
//! NDJSON connection to the socket.
//!
//! Nothing leaks into `$HOME`: every child gets `HOME`, `XDG_STATE_HOME` (audit log) and
//! `XDG_RUNTIME_DIR` (default socket) pointing into the temp dir, and `ULTRA_SOCKET` is
//! cleared unless a test sets it.

#![allow(dead_code)]

pub mod wsc;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_ultra");

/// How long anything may take before a test gives up. Generous for a loaded 2-core
/// machine; every wait polls and returns as soon as its condition holds.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// A temp dir holding a workspace root (`root/`), a state dir, a runtime dir and the
/// socket directory `s/`.
pub struct Ws {
    pub tmp: tempfile::TempDir,
    /// The workspace root (canonical).
    pub root: PathBuf,
    /// The socket `ultra serve` listens on.
    pub sock: PathBuf,
}

impl Default for Ws {
    fn default() -> Self {
        Ws::new()
    }
}

impl Ws {
    pub fn new() -> Ws {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = tmp.path().canonicalize().expect("canonical tempdir");
        let root = base.join("root");
        std::fs::create_dir(&root).expect("mkdir root");
        for d in ["state", "run", "home"] {
            std::fs::create_dir(base.join(d)).expect("mkdir");
        }
        Ws {
            sock: base.join("s").join("ultra.sock"),
            root,
            tmp,
        }
    }

    /// The temp dir itself (parent of the root): "outside the workspace".
    pub fn base(&self) -> PathBuf {
        self.root.parent().expect("root has a parent").to_path_buf()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Write a file under the root, creating parents.
    pub fn write(&self, rel: &str, content: &str) {
        let p = self.path(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("mkdir -p");
        }
        std::fs::write(&p, content).expect("write file");
    }

    /// Read a file under the root.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub fn exists(&self, rel: &str) -> bool {
        std::fs::symlink_metadata(self.path(rel)).is_ok()
    }

    /// Write `ultra.config.json`.
    pub fn config(&self, cfg: Value) {
        std::fs::write(
            self.path("ultra.config.json"),
            serde_json::to_string_pretty(&cfg).expect("json"),
        )
        .expect("write config");
    }

    /// Environment shared by every child: state, runtime dir and home inside the temp dir.
    fn env(&self, cmd: &mut Command) {
        let base = self.base();
        cmd.env("XDG_STATE_HOME", base.join("state"))
            .env("XDG_RUNTIME_DIR", base.join("run"))
            .env("HOME", base.join("home"))
            .env_remove("ULTRA_SOCKET")
            .current_dir(&self.root);
    }

    /// A `Command` for the binary with the temp-dir environment and `--root`.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(BIN);
        self.env(&mut cmd);
        cmd.arg("--root").arg(&self.root);
        cmd
    }

    /// Run `ultra --root <root> ARGS...` with stdin from /dev/null.
    pub fn cli(&self, args: &[&str]) -> Cli {
        self.cli_with(args, |_| {})
    }

    /// Like [`Ws::cli`], with a hook to adjust the command (extra env).
    pub fn cli_with(&self, args: &[&str], adjust: impl FnOnce(&mut Command)) -> Cli {
        let mut cmd = self.command();
        cmd.args(args).stdin(Stdio::null());
        adjust(&mut cmd);
        let out = run_with_deadline(cmd);
        Cli(out)
    }

    /// Every audit log line written for this workspace (under `$XDG_STATE_HOME/ultra`).
    pub fn audit(&self) -> Vec<Value> {
        self.audit_text()
            .lines()
            .map(|line| serde_json::from_str(line).expect("audit line is JSON"))
            .collect()
    }

    /// The raw text of every audit log of this workspace. A read-only call's line is
    /// written just after its reply is sent, so this reads until the logs stop changing.
    pub fn audit_text(&self) -> String {
        let mut last = self.audit_now();
        loop {
            std::thread::sleep(std::time::Duration::from_millis(30));
            let now = self.audit_now();
            if now == last {
                return now;
            }
            last = now;
        }
    }

    fn audit_now(&self) -> String {
        let mut out = String::new();
        let dir = self.base().join("state").join("ultra");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                if let Ok(t) = std::fs::read_to_string(e.path().join("audit.ndjson")) {
                    out.push_str(&t);
                }
            }
        }
        out
    }

    /// Start `ultra serve --socket <tmp>/s/ultra.sock` with stdin from /dev/null (no
    /// terminal, so "ask" fails with CONFIRMATION_REQUIRED). Returns once it printed
    /// `ready`.
    pub fn serve(&self) -> Server {
        let mut cmd = self.command();
        cmd.arg("serve")
            .arg("--socket")
            .arg(&self.sock)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        Server::spawn(cmd, self.sock.clone())
    }

    /// Connect to the running server.
    pub fn connect(&self) -> Conn {
        Conn::open(&self.sock)
    }

    /// Connect and identify as an AI agent.
    pub fn agent(&self, id: &str) -> Conn {
        let mut c = self.connect();
        c.identify(json!({ "source": "ai", "agentId": id }));
        c
    }
}

/// Run a command to completion, killing it if it outlives [`DEADLINE`].
pub fn run_with_deadline(cmd: Command) -> Output {
    run_within(cmd, DEADLINE)
}

/// Run a command to completion, killing it if it outlives `deadline` (for slow clients
/// such as a browser session).
pub fn run_within(mut cmd: Command, deadline: Duration) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn ultra");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stdout.read_to_end(&mut v);
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        status,
        stdout: out_t.join().unwrap_or_default(),
        stderr: err_t.join().unwrap_or_default(),
    }
}

/// The outcome of one CLI run.
pub struct Cli(pub Output);

impl Cli {
    pub fn code(&self) -> i32 {
        self.0.status.code().unwrap_or(-1)
    }
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }
    /// Stdout parsed as a stream of (pretty-printed) JSON values, as `--json` prints them.
    pub fn json(&self) -> Vec<Value> {
        serde_json::Deserializer::from_slice(&self.0.stdout)
            .into_iter::<Value>()
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout()))
    }
    /// Assert success and return stdout.
    pub fn ok(&self) -> String {
        assert_eq!(
            self.code(),
            0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self.stdout()
    }
}

/// A running `ultra serve`, killed (SIGKILL) when dropped.
pub struct Server {
    pub child: Child,
    pub sock: PathBuf,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Spawn `cmd` (stdout piped) and wait for its `ready <socket>` line.
    pub fn spawn(mut cmd: Command, sock: PathBuf) -> Server {
        let mut child = cmd.spawn().expect("spawn ultra serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        if let Some(mut err) = child.stderr.take() {
            let buf = stderr.clone();
            std::thread::spawn(move || {
                let mut chunk = [0u8; 4096];
                while let Ok(n) = err.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    let mut b = buf.lock().unwrap_or_else(|p| p.into_inner());
                    b.push_str(&String::from_utf8_lossy(&chunk[..n]));
                }
            });
        }
        let stdout = child.stdout.take().expect("serve stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            sock,
            stderr,
        };
        let start = Instant::now();
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(line) if line.starts_with("ready ") => {
                    assert_eq!(
                        Path::new(line.trim_start_matches("ready ")),
                        server.sock,
                        "ready line names the socket"
                    );
                    return server;
                }
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = server.child.wait().ok();
                    panic!(
                        "ultra serve exited before it was ready ({status:?}):\n{}",
                        server.stderr()
                    );
                }
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!(
                    "ultra serve exited before it was ready ({status}):\n{}",
                    server.stderr()
                );
            }
            assert!(
                start.elapsed() < DEADLINE,
                "ultra serve not ready within {DEADLINE:?}:\n{}",
                server.stderr()
            );
        }
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Wait until the server's stderr contains `text`; returns all of it.
    pub fn wait_stderr(&self, text: &str) -> String {
        wait_until(&format!("`{text}` on the server's stderr"), || {
            self.stderr().contains(text)
        });
        self.stderr()
    }

    /// SIGKILL and reap.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// A raw NDJSON connection. Replies are matched by position (the server answers in
/// order); pushed notifications (no `id`) are queued in `events`.
pub struct Conn {
    reader: BufReader<UnixStream>,
    pub writer: UnixStream,
    next_id: u64,
    pub events: VecDeque<Value>,
}

impl Conn {
    pub fn open(sock: &Path) -> Conn {
        let stream =
            UnixStream::connect(sock).unwrap_or_else(|e| panic!("connect {}: {e}", sock.display()));
        stream
            .set_read_timeout(Some(DEADLINE))
            .expect("read timeout");
        stream
            .set_write_timeout(Some(DEADLINE))
            .expect("write timeout");
        Conn {
            writer: stream.try_clone().expect("clone"),
            reader: BufReader::new(stream),
            next_id: 0,
            events: VecDeque::new(),
        }
    }

    /// Send raw bytes followed by a newline.
    pub fn send_raw(&mut self, line: &[u8]) {
        self.writer.write_all(line).expect("write");
        self.writer.write_all(b"\n").expect("write newline");
    }

    pub fn send(&mut self, v: &Value) {
        self.send_raw(serde_json::to_string(v).expect("json").as_bytes());
    }

    /// Send one line and return the next line exactly as the server wrote it (for what a
    /// parse to `Value` would blur, such as a numeric id's text).
    pub fn exchange_raw(&mut self, line: &str) -> String {
        self.send_raw(line.as_bytes());
        let mut reply = String::new();
        match self.reader.read_line(&mut reply) {
            Ok(n) if n > 0 => reply.trim_end().to_string(),
            other => panic!("no reply to {line}: {other:?}"),
        }
    }

    /// The next line as JSON; `None` at EOF (or a reset connection). Panics on timeout.
    pub fn read_line(&mut self) -> Option<Value> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => None,
            Ok(_) => Some(
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("server sent non-JSON ({e}): {line}")),
            ),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("no reply within {DEADLINE:?}")
            }
            Err(_) => None,
        }
    }

    /// The next reply (a line with an `id`, or a batch array), queueing notifications.
    pub fn reply(&mut self) -> Value {
        loop {
            let v = self.read_line().expect("connection closed before a reply");
            if is_notification(&v) {
                self.events.push_back(v);
                continue;
            }
            return v;
        }
    }

    /// Send a JSON-RPC request and return the whole response object.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let r = self.reply();
        assert_eq!(r["id"], json!(id), "reply to the wrong id: {r}");
        r
    }

    /// [`Conn::ok`] for a call that does long work (a whole index), given `patience` for
    /// its reply instead of [`DEADLINE`]: on a loaded 2-core machine a cold index of a few
    /// thousand files can take longer.
    pub fn ok_within(&mut self, patience: Duration, method: &str, params: Value) -> Value {
        self.reader
            .get_ref()
            .set_read_timeout(Some(patience))
            .expect("read timeout");
        let r = self.ok(method, params);
        self.reader
            .get_ref()
            .set_read_timeout(Some(DEADLINE))
            .expect("read timeout");
        r
    }

    /// A call that must succeed; returns `result`.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let r = self.call(method, params.clone());
        assert!(
            r.get("error").is_none(),
            "{method} {params} failed: {}",
            r["error"]
        );
        r["result"].clone()
    }

    /// A call that must fail; returns the error object (`code`, `message`, `data`).
    pub fn err(&mut self, method: &str, params: Value) -> Value {
        let r = self.call(method, params.clone());
        assert!(
            r.get("error").is_some(),
            "{method} {params} should have failed, got {}",
            r["result"]
        );
        r["error"].clone()
    }

    /// A call that must fail with this string code; returns the error object.
    pub fn err_code(&mut self, method: &str, params: Value, code: &str) -> Value {
        let e = self.err(method, params.clone());
        assert_eq!(
            e["data"]["code"], code,
            "{method} {params}: wrong error: {e}"
        );
        e
    }

    /// `session.identify`.
    pub fn identify(&mut self, params: Value) -> Value {
        self.ok("session.identify", params)
    }

    /// Wait for a pushed notification matching `pred`, skipping (and dropping) others.
    pub fn wait_event(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            while let Some(ev) = self.events.pop_front() {
                if pred(&ev) {
                    return ev;
                }
            }
            assert!(start.elapsed() < DEADLINE, "no matching event");
            let v = self
                .read_line()
                .expect("connection closed while waiting for an event");
            if is_notification(&v) {
                self.events.push_back(v);
            }
        }
    }

    /// Wait up to `timeout` for a pushed notification matching `pred`; `None` if none came.
    /// Non-matching notifications are dropped; replies must not be pending.
    pub fn try_event(&mut self, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        let start = Instant::now();
        let found = loop {
            if let Some(i) = self.events.iter().position(&pred) {
                break self.events.remove(i);
            }
            self.events.clear();
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                break None;
            }
            self.reader
                .get_ref()
                .set_read_timeout(Some(left))
                .expect("read timeout");
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) => panic!("connection closed while waiting for an event"),
                Ok(_) => {
                    let v: Value = serde_json::from_str(&line).expect("JSON line");
                    assert!(is_notification(&v), "unexpected reply: {v}");
                    self.events.push_back(v);
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    assert!(line.is_empty(), "timed out mid-line");
                }
                Err(e) => panic!("read: {e}"),
            }
        };
        self.reader
            .get_ref()
            .set_read_timeout(Some(DEADLINE))
            .expect("read timeout");
        found
    }

    /// Events received so far (without reading more).
    pub fn drain_events(&mut self) -> Vec<Value> {
        self.events.drain(..).collect()
    }

    /// Whether the server closed the connection: reads until EOF, skipping anything else.
    pub fn is_closed(&mut self) -> bool {
        let start = Instant::now();
        loop {
            match self.read_line() {
                None => return true,
                Some(_) if start.elapsed() < DEADLINE => continue,
                Some(_) => return false,
            }
        }
    }
}

fn is_notification(v: &Value) -> bool {
    v.is_object()
        && v.get("id").is_none()
        && (v.get("method").is_some() || v.get("type") == Some(&json!("event")))
}

/// A seed-000 envelope `execute` through a raw connection; returns the envelope reply.
pub fn envelope_execute(c: &mut Conn, command: &str, args: Value) -> Value {
    c.send(&json!({ "id": "e1", "type": "execute", "command": command, "args": args }));
    let r = c.reply();
    assert_eq!(r["id"], "e1", "{r}");
    r
}

/// A range from (l1, c1) to (l2, c2), 0-based.
pub fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Value {
    json!({ "start": { "line": l1, "character": c1 }, "end": { "line": l2, "character": c2 } })
}

/// Poll `cond` until it holds or the deadline passes.
pub fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The names of temp files Ultra's atomic writes leave behind, if any, in `dir`.
pub fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".ultra-tmp."))
                .collect()
        })
        .unwrap_or_default()
}

/// How many batch journals the workspace's state directory still holds (a finished or
/// recovered batch leaves none).
pub fn journals_left(ws: &Ws) -> usize {
    std::fs::read_dir(ws.base().join("state/ultra"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|d| {
            std::fs::read_dir(d.path().join("journal"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .count()
}

/// Run git in the workspace (no system or user config), asserting success; its stdout.
pub fn git(ws: &Ws, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(ws.path(""))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", ws.base().join("home"))
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `ultra mcp ARGS` on a workspace, spoken to in raw JSON-RPC lines over its stdio (what
/// an SDK hides: exact shapes, `_meta`, stateless requests).
pub struct RawMcp {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl RawMcp {
    /// Start the server.
    pub fn start(ws: &Ws, args: &[&str]) -> RawMcp {
        let mut child = ws
            .command()
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ultra mcp");
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        RawMcp {
            child,
            stdin,
            lines,
        }
    }

    /// Send one message.
    pub fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{v}").expect("send");
        stdin.flush().expect("flush");
    }

    /// Send one line as it is.
    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("send");
        stdin.flush().expect("flush");
    }

    /// The next message from the server.
    pub fn read(&mut self) -> Value {
        let line = self.lines.next().expect("a reply").expect("read");
        serde_json::from_str(&line).expect("a JSON reply")
    }

    /// `initialize` (revision 2025-06-18, as client `name`) and `initialized`; the result.
    pub fn initialize(&mut self, name: &str) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": name, "version": "1"}}}),
        );
        let init = self.read();
        assert_eq!(init["result"]["serverInfo"]["name"], "ultra", "{init}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// Close stdin and wait for the server to exit.
    pub fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("wait")
    }
}

/// pyright-langserver from `crates/ultra-lsp/tests/servers` (installed from its lock file
/// when absent).
pub fn pyright() -> PathBuf {
    test_server("pyright-langserver")
}

/// typescript-language-server (with TypeScript) from `crates/ultra-lsp/tests/servers`.
pub fn typescript_server() -> PathBuf {
    test_server("typescript-language-server")
}

fn test_server(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ultra-lsp/tests/servers");
    npm_ci(&dir, &format!("node_modules/.bin/{name}"));
    dir.join("node_modules/.bin")
        .join(name)
        .canonicalize()
        .expect("the language server is installed")
}

/// Installs the npm packages of the test client in `dir` from its lock file (`npm ci`)
/// unless `marker`, a path under `dir`, shows them there: `.ci/run` installs them first,
/// and the README's test command works without it. One install at a time per test binary.
pub fn npm_ci(dir: &Path, marker: &str) {
    static INSTALLING: Mutex<()> = Mutex::new(());
    let _one = INSTALLING.lock().unwrap_or_else(|p| p.into_inner());
    if dir.join(marker).exists() {
        return;
    }
    let ci = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir)
        .output()
        .expect("npm runs");
    assert!(
        ci.status.success(),
        "npm ci in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&ci.stderr)
    );
}

/// A small deterministic generator (xorshift64*) for the model-based tests, so a failing
/// seed can be replayed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}
