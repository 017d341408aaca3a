//! A small blocking client for the CLI (`ultra -c`).
//!
//! Blocking std I/O on purpose: the CLI sends a few requests and exits, so a runtime would
//! only add start-up time. Commands go through the seed-000 envelope ([`Client::execute`])
//! so that warnings and agent feedback arrive intact in a full [`CommandResult`]; other
//! calls use JSON-RPC ([`Client::call`]). Pushed events that arrive while waiting for a
//! reply are queued and handed out by [`Client::next_event`].

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};
use ultra_core::config::IpcConfig;
use ultra_protocol::ipc::{BatchItem, IpcResponse, IpcResult};
use ultra_protocol::jsonrpc::ErrorObject;
use ultra_protocol::{CommandError, CommandResult, ErrorCode, Event, Source, SourceKind};

use crate::runtime::resolve_socket_path;

/// Who the caller says it is. All fields optional; the server defaults to `ipc`, or `ai`
/// when only an agent id is given. `human` and `internal` are refused by the server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The source kind to claim (`cli` for the command line).
    pub source: Option<SourceKind>,
    /// Agent id (`--agent`).
    pub agent_id: Option<String>,
    /// Session id (`--session`).
    pub session_id: Option<String>,
}

/// What went wrong on the client side of a call.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No server could be reached; see [`ClientError::is_not_running`].
    #[error("cannot connect to the Ultra server at {path}: {source}")]
    Connect {
        /// The socket path tried.
        path: PathBuf,
        /// The error from `connect`.
        #[source]
        source: io::Error,
    },
    /// Reading or writing the socket failed (including a read timeout).
    #[error("socket I/O failed: {0}")]
    Io(#[from] io::Error),
    /// The server closed the connection before replying.
    #[error("the Ultra server closed the connection")]
    Closed,
    /// The server sent something that is not a valid reply to our request.
    #[error("unexpected reply from the Ultra server: {0}")]
    Protocol(String),
    /// A JSON-RPC call failed; `data` normally holds the structured [`CommandError`].
    #[error("{} ({})", .0.message, .0.code)]
    Rpc(Box<ErrorObject>),
    /// The server refused a seed-000 envelope request (`MISSING_COMMAND`,
    /// `SOURCE_NOT_ALLOWED`, ...) before running anything.
    #[error("{code}: {message}")]
    Rejected {
        /// The string code.
        code: String,
        /// What was wrong.
        message: String,
    },
}

impl ClientError {
    /// True when nothing is listening at the socket path (missing file or refused
    /// connection): the CLI should run the command in process instead.
    pub fn is_not_running(&self) -> bool {
        matches!(self, ClientError::Connect { source, .. }
            if matches!(source.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused))
    }

    /// The error as a structured [`CommandError`], for printing the same way as a failed
    /// [`CommandResult`].
    pub fn command_error(&self) -> CommandError {
        match self {
            ClientError::Rpc(obj) => obj
                .data
                .clone()
                .and_then(|d| serde_json::from_value::<CommandError>(d).ok())
                .unwrap_or_else(|| {
                    CommandError::new(ErrorCode::InternalError, obj.message.clone())
                }),
            ClientError::Rejected { code, message } => {
                let code = serde_json::from_value(Value::String(code.clone()))
                    .unwrap_or(ErrorCode::Unknown);
                CommandError::new(code, message.clone())
            }
            ClientError::Connect { .. } | ClientError::Io(_) | ClientError::Closed => {
                CommandError::new(ErrorCode::IoError, self.to_string())
            }
            ClientError::Protocol(_) => {
                CommandError::new(ErrorCode::InternalError, self.to_string())
            }
        }
    }
}

/// A connection to an Ultra server.
#[derive(Debug)]
pub struct Client {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
    events: VecDeque<Event>,
}

impl Client {
    /// Connect to the socket at `path`.
    pub fn connect(path: &Path) -> Result<Client, ClientError> {
        let stream = UnixStream::connect(path).map_err(|source| ClientError::Connect {
            path: path.to_path_buf(),
            source,
        })?;
        let writer = stream.try_clone()?;
        Ok(Client {
            reader: BufReader::new(stream),
            writer,
            next_id: 0,
            events: VecDeque::new(),
        })
    }

    /// Connect to the server of a workspace, at the path from [`resolve_socket_path`].
    pub fn connect_workspace(
        workspace_root: &Path,
        cfg: &IpcConfig,
    ) -> Result<Client, ClientError> {
        Client::connect(&resolve_socket_path(workspace_root, cfg))
    }

    /// Limit how long a read may block (`None`: forever). A timeout surfaces as
    /// [`ClientError::Io`].
    pub fn set_timeout(&mut self, timeout: Option<Duration>) -> Result<(), ClientError> {
        self.reader.get_ref().set_read_timeout(timeout)?;
        self.writer.set_write_timeout(timeout)?;
        Ok(())
    }

    /// Call a JSON-RPC method with named params; returns `result`.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let id = self.fresh_id();
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        let reply = self.read_reply()?;
        match reply.get("id") {
            Some(v) if *v == json!(id) => {}
            // Errors the server could not attribute (parse error, line too long, too many
            // connections) carry a null id; they are still the answer to this call.
            Some(Value::Null) if reply.get("error").is_some() => {}
            other => {
                return Err(ClientError::Protocol(format!(
                    "expected a response to id {id}, got id {other:?}"
                )));
            }
        }
        if let Some(err) = reply.get("error") {
            let obj: ErrorObject = serde_json::from_value(err.clone())
                .map_err(|e| ClientError::Protocol(format!("malformed error object: {e}")))?;
            return Err(ClientError::Rpc(Box::new(obj)));
        }
        reply
            .get("result")
            .cloned()
            .ok_or_else(|| ClientError::Protocol("response has neither result nor error".into()))
    }

    /// Send a JSON-RPC notification (no reply expected).
    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), ClientError> {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
    }

    /// Run one command and get its full [`CommandResult`], warnings and feedback included.
    /// A failed command is `Ok` with `success: false`; `Err` means the request itself
    /// failed.
    pub fn execute(
        &mut self,
        command: &str,
        args: Value,
        caller: &Caller,
    ) -> Result<CommandResult, ClientError> {
        let mut req = self.envelope("execute", caller);
        req.insert("command".into(), Value::String(command.to_string()));
        req.insert("args".into(), args);
        match self.envelope_call(req)? {
            IpcResult::One(r) => Ok(*r),
            IpcResult::Many(_) => Err(ClientError::Protocol(
                "execute answered with a list of results".into(),
            )),
        }
    }

    /// Run several commands in order, one result each.
    pub fn batch(
        &mut self,
        commands: &[BatchItem],
        caller: &Caller,
    ) -> Result<Vec<CommandResult>, ClientError> {
        let mut req = self.envelope("batch", caller);
        let list =
            serde_json::to_value(commands).map_err(|e| ClientError::Protocol(e.to_string()))?;
        req.insert("commands".into(), list);
        match self.envelope_call(req)? {
            IpcResult::Many(rs) => Ok(rs),
            IpcResult::One(_) => Err(ClientError::Protocol(
                "batch answered with a single result".into(),
            )),
        }
    }

    /// The AI-exposed commands (seed 000 `query`): a result whose data is a list of
    /// `{id, title, description, category, args}`.
    pub fn query(&mut self) -> Result<CommandResult, ClientError> {
        let req = self.envelope("query", &Caller::default());
        match self.envelope_call(req)? {
            IpcResult::One(r) => Ok(*r),
            IpcResult::Many(_) => Err(ClientError::Protocol(
                "query answered with a list of results".into(),
            )),
        }
    }

    /// Declare who this connection is for every later JSON-RPC call; returns the source
    /// the server recorded.
    pub fn identify(&mut self, caller: &Caller) -> Result<Source, ClientError> {
        let mut params = Map::new();
        if let Some(k) = caller.source {
            params.insert("source".into(), Value::String(k.as_str().into()));
        }
        if let Some(a) = &caller.agent_id {
            params.insert("agentId".into(), Value::String(a.clone()));
        }
        if let Some(s) = &caller.session_id {
            params.insert("sessionId".into(), Value::String(s.clone()));
        }
        let reply = self.call("session.identify", Value::Object(params))?;
        serde_json::from_value(reply.get("source").cloned().unwrap_or(Value::Null))
            .map_err(|e| ClientError::Protocol(format!("malformed source: {e}")))
    }

    /// Subscribe to events by name or pattern (`buffer.*`, `*`); returns the patterns now
    /// active. Read them with [`Client::next_event`].
    pub fn subscribe(&mut self, patterns: &[&str]) -> Result<Vec<String>, ClientError> {
        let reply = self.call("subscribe", json!({ "events": patterns }))?;
        serde_json::from_value(reply.get("subscribed").cloned().unwrap_or(Value::Null))
            .map_err(|e| ClientError::Protocol(format!("malformed subscribe reply: {e}")))
    }

    /// Wait for the next pushed event. A subscriber that fell behind receives an
    /// `events.lagged` event with `{missed: n}`.
    pub fn next_event(&mut self) -> Result<Event, ClientError> {
        if let Some(ev) = self.events.pop_front() {
            return Ok(ev);
        }
        let v = self.read_value()?;
        as_event(&v).ok_or_else(|| ClientError::Protocol(format!("expected an event, got {v}")))
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn envelope(&mut self, kind: &str, caller: &Caller) -> Map<String, Value> {
        let mut req = Map::new();
        req.insert("id".into(), Value::String(self.fresh_id().to_string()));
        req.insert("type".into(), Value::String(kind.into()));
        if let Some(k) = caller.source {
            req.insert("source".into(), Value::String(k.as_str().into()));
        }
        if let Some(a) = &caller.agent_id {
            req.insert("agentId".into(), Value::String(a.clone()));
        }
        if let Some(s) = &caller.session_id {
            req.insert("sessionId".into(), Value::String(s.clone()));
        }
        req
    }

    fn envelope_call(&mut self, req: Map<String, Value>) -> Result<IpcResult, ClientError> {
        let id = req.get("id").cloned().unwrap_or(Value::Null);
        self.send(&Value::Object(req))?;
        let reply = self.read_reply()?;
        // A JSON-RPC-shaped error here means the server rejected the line before reading
        // it as an envelope (too long, too many connections).
        if reply.get("jsonrpc").is_some() {
            let obj: Option<ErrorObject> = reply
                .get("error")
                .cloned()
                .and_then(|e| serde_json::from_value(e).ok());
            return Err(match obj {
                Some(o) => ClientError::Rpc(Box::new(o)),
                None => ClientError::Protocol(format!("unexpected JSON-RPC reply: {reply}")),
            });
        }
        let resp: IpcResponse = serde_json::from_value(reply)
            .map_err(|e| ClientError::Protocol(format!("malformed envelope response: {e}")))?;
        if resp.id != id {
            return Err(ClientError::Protocol(format!(
                "expected a response to id {id}, got {}",
                resp.id
            )));
        }
        if !resp.success {
            let (code, message) = match resp.error {
                Some(e) => (e.code, e.message),
                None => ("UNKNOWN".into(), "request failed without an error".into()),
            };
            return Err(ClientError::Rejected { code, message });
        }
        resp.result
            .ok_or_else(|| ClientError::Protocol("successful response without a result".into()))
    }

    fn send(&mut self, value: &Value) -> Result<(), ClientError> {
        let mut line =
            serde_json::to_vec(value).map_err(|e| ClientError::Protocol(e.to_string()))?;
        line.push(b'\n');
        self.writer.write_all(&line)?;
        Ok(())
    }

    /// The next line that is not a pushed event; events met on the way are queued.
    fn read_reply(&mut self) -> Result<Value, ClientError> {
        loop {
            let v = self.read_value()?;
            match as_event(&v) {
                Some(ev) => self.events.push_back(ev),
                None => return Ok(v),
            }
        }
    }

    fn read_value(&mut self) -> Result<Value, ClientError> {
        let mut line = Vec::new();
        loop {
            line.clear();
            if self.reader.read_until(b'\n', &mut line)? == 0 {
                return Err(ClientError::Closed);
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return serde_json::from_slice(&line)
                .map_err(|e| ClientError::Protocol(format!("invalid JSON from server: {e}")));
        }
    }
}

/// A pushed event in either wire shape, or `None` for anything else.
fn as_event(v: &Value) -> Option<Event> {
    let obj = v.as_object()?;
    if obj.get("type").and_then(Value::as_str) == Some("event") {
        return Some(Event {
            event: obj
                .get("event")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            data: obj.get("data").cloned().unwrap_or(Value::Null),
            source: None,
        });
    }
    // A JSON-RPC notification: a method and no id.
    let method = obj.get("method").and_then(Value::as_str)?;
    if obj.contains_key("id") {
        return None;
    }
    let params = obj.get("params").cloned().unwrap_or(Value::Null);
    let named = params.get("event").and_then(Value::as_str).is_some();
    Some(Event {
        event: method.to_string(),
        data: if named {
            params.get("data").cloned().unwrap_or(Value::Null)
        } else {
            params.clone()
        },
        source: params
            .get("source")
            .cloned()
            .and_then(|s| serde_json::from_value(s).ok()),
    })
}
