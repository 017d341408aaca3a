//! Shared fixtures: a trivial host, a handful of test commands, a server on a socket in a
//! temp dir (with its own Tokio runtime, so tests can use plain blocking sockets), and a
//! raw line-oriented connection for poking at the wire.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ultra_core::audit::AuditLog;
use ultra_core::command::Touches;
use ultra_core::config::IpcConfig;
use ultra_core::events::EventBus;
use ultra_core::executor::ExecutorParts;
use ultra_core::validator::FileReader;
use ultra_core::{Command, CommandSpec, Cx, Executor, Host, Registry};
use ultra_ipc::{IpcError, Server, ShutdownHandle};
use ultra_protocol::{CommandError, ErrorCode, Source};

/// A host with no workspace behind it.
pub struct TestHost;

impl Host for TestHost {
    fn workspace_root(&self) -> PathBuf {
        PathBuf::from("/")
    }
    fn active_file(&self) -> Option<String> {
        None
    }
    fn file_reader(&self) -> FileReader {
        Arc::new(|_| None)
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    text: String,
    #[serde(default)]
    warn: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct EchoOut {
    text: String,
    source: Source,
}

/// `test.echo {text, warn?}` → `{text, source}`; alias `echo`.
pub struct Echo;
static ECHO: CommandSpec = CommandSpec::new("test.echo", "Echo", "Test", "Echo the text back.")
    .touches(Touches::NOTHING)
    .aliases(&["echo"])
    .read_only();

impl Command<TestHost> for Echo {
    type Args = EchoArgs;
    type Output = EchoOut;
    fn spec(&self) -> &'static CommandSpec {
        &ECHO
    }
    fn run(&self, cx: &mut Cx<'_, TestHost>, args: EchoArgs) -> Result<EchoOut, CommandError> {
        if args.warn {
            cx.warn("TEST_WARN", "you asked for a warning");
        }
        Ok(EchoOut {
            text: args.text,
            source: cx.source.clone(),
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// `test.fail` always fails with FILE_NOT_FOUND.
pub struct Fail;
static FAIL: CommandSpec = CommandSpec::new("test.fail", "Fail", "Test", "Always fails.")
    .touches(Touches::NOTHING)
    .read_only();

impl Command<TestHost> for Fail {
    type Args = NoArgs;
    type Output = Value;
    fn spec(&self) -> &'static CommandSpec {
        &FAIL
    }
    fn run(&self, _cx: &mut Cx<'_, TestHost>, _args: NoArgs) -> Result<Value, CommandError> {
        Err(
            CommandError::new(ErrorCode::FileNotFound, "no such file: missing.txt")
                .with_suggestion("list the directory first"),
        )
    }
}

/// `test.hidden`: not exposed to agents.
pub struct Hidden;
static HIDDEN: CommandSpec = CommandSpec::new("test.hidden", "Hidden", "Test", "Not for agents.")
    .touches(Touches::NOTHING)
    .read_only()
    .not_ai_exposed();

impl Command<TestHost> for Hidden {
    type Args = NoArgs;
    type Output = Value;
    fn spec(&self) -> &'static CommandSpec {
        &HIDDEN
    }
    fn run(&self, _cx: &mut Cx<'_, TestHost>, _args: NoArgs) -> Result<Value, CommandError> {
        Ok(json!({}))
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SleepArgs {
    ms: u64,
}

/// `test.sleep {ms}` blocks its thread, to observe ordering and concurrency.
pub struct Sleep;
static SLEEP: CommandSpec = CommandSpec::new("test.sleep", "Sleep", "Test", "Sleep for a while.")
    .touches(Touches::NOTHING)
    .read_only()
    .long();

impl Command<TestHost> for Sleep {
    type Args = SleepArgs;
    type Output = u64;
    fn spec(&self) -> &'static CommandSpec {
        &SLEEP
    }
    fn run(&self, _cx: &mut Cx<'_, TestHost>, args: SleepArgs) -> Result<u64, CommandError> {
        std::thread::sleep(Duration::from_millis(args.ms));
        Ok(args.ms)
    }
}

pub fn executor(events: EventBus) -> Executor<TestHost> {
    let mut registry = Registry::new();
    registry.register(Echo).unwrap();
    registry.register(Fail).unwrap();
    registry.register(Hidden).unwrap();
    registry.register(Sleep).unwrap();
    Executor::new(ExecutorParts {
        registry,
        services: Arc::new(TestHost),
        policy: Default::default(),
        validators: Default::default(),
        audit: AuditLog::disabled(),
        events,
        security: Default::default(),
        deferred: None,
    })
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A running server on `<tempdir>/run/ultra.sock`.
pub struct TestServer {
    pub exec: Arc<Executor<TestHost>>,
    pub path: PathBuf,
    pub dir: tempfile::TempDir,
    handle: ShutdownHandle,
    done: Option<tokio::task::JoinHandle<Result<(), IpcError>>>,
    rt: Option<tokio::runtime::Runtime>,
}

pub fn start(cfg: IpcConfig) -> TestServer {
    start_with(cfg, EventBus::default())
}

pub fn start_with(cfg: IpcConfig, events: EventBus) -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run").join("ultra.sock");
    let rt = runtime();
    let exec = Arc::new(executor(events));
    let server = rt
        .block_on(Server::bind(exec.clone(), &path, &cfg))
        .unwrap();
    assert_eq!(server.socket_path(), path);
    let handle = server.shutdown_handle();
    let done = rt.spawn(server.run());
    TestServer {
        exec,
        path,
        dir,
        handle,
        done: Some(done),
        rt: Some(rt),
    }
}

impl TestServer {
    pub fn connect(&self) -> Raw {
        Raw::connect(&self.path)
    }

    /// Bind a second server on the same path, in this server's runtime.
    pub fn bind_again(&self) -> Result<Server<TestHost>, IpcError> {
        let exec = Arc::new(executor(EventBus::default()));
        self.rt
            .as_ref()
            .unwrap()
            .block_on(Server::bind(exec, &self.path, &IpcConfig::default()))
    }

    /// Shut down and wait for `run` to return.
    pub fn stop(mut self) -> Result<(), IpcError> {
        self.handle.shutdown();
        let done = self.done.take().unwrap();
        self.rt.as_ref().unwrap().block_on(done).unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.handle.shutdown();
        if let Some(rt) = self.rt.take() {
            rt.shutdown_timeout(Duration::from_secs(2));
        }
    }
}

/// A raw NDJSON connection with a read timeout, so a missing reply fails the test
/// instead of hanging it.
pub struct Raw {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Raw {
    pub fn connect(path: &Path) -> Raw {
        let stream = UnixStream::connect(path).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let writer = stream.try_clone().unwrap();
        Raw {
            reader: BufReader::new(stream),
            writer,
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
    }

    pub fn send(&mut self, v: &Value) {
        let mut line = serde_json::to_vec(v).unwrap();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// The next line as JSON; panics on EOF or timeout.
    pub fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = self
            .reader
            .read_line(&mut line)
            .expect("read failed or timed out");
        assert!(n > 0, "connection closed while a reply was expected");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("server sent invalid JSON ({e}): {line:?}"))
    }

    pub fn call(&mut self, v: &Value) -> Value {
        self.send(v);
        self.recv()
    }

    /// Assert the server closes the connection (EOF or reset).
    pub fn expect_closed(&mut self) {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => {}
            Ok(_) => panic!("expected the connection to close, got {line:?}"),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
            Err(e) => panic!("expected the connection to close, got error {e}"),
        }
    }

    /// True if no line arrives within `ms`.
    pub fn silent_for(&mut self, ms: u64) -> bool {
        self.reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(ms)))
            .unwrap();
        let mut line = String::new();
        let r = self.reader.read_line(&mut line);
        self.reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        match r {
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => true,
            Ok(_) | Err(_) => panic!("expected silence, got {line:?} / {r:?}"),
        }
    }
}

/// A JSON-RPC call object.
pub fn rpc(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// A JSON-RPC notification object.
pub fn note(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}
