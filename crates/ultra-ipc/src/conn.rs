//! One connection: framing, dispatch, subscriptions and the caller's identity.
//!
//! Requests on a connection run one after another in arrival order, so responses come back
//! in order; different connections run concurrently on their own tasks. Everything written
//! to the socket (responses and pushed events) goes through one writer task fed by a
//! bounded channel, so two lines can never interleave and a client that stops reading
//! slows only its own connection.
//!
//! Framing is NDJSON with a hard line limit. Lines are decoded as bytes, not `String`, so
//! that invalid UTF-8 is an ordinary parse error (`-32700`, connection kept) instead of a
//! codec error that would end the stream; a line over the limit gets one `TOO_LARGE` error
//! and the connection is closed, because the rest of it cannot be resynchronised cheaply.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OwnedSemaphorePermit, broadcast, mpsc};
use tokio::task::JoinHandle;
use tokio_util::codec::{AnyDelimiterCodec, AnyDelimiterCodecError, FramedRead};
use tokio_util::sync::CancellationToken;
use ultra_core::{Executor, Host};
use ultra_protocol::event::pattern_matches;
use ultra_protocol::ipc::{IpcError as WireError, IpcEvent, IpcRequest, IpcResponse, IpcResult};
use ultra_protocol::jsonrpc::{ErrorObject, Id, Notification, Request, Response};
use ultra_protocol::{
    API_LEVEL, CommandError, CommandResult, ErrorCode, Event, PositionEncoding, Source, SourceKind,
};

/// Outgoing lines buffered per connection before producers wait for the client to read.
const OUT_QUEUE: usize = 256;
/// Outgoing bytes buffered per connection: a client that pipelines large reads and never
/// reads the answers holds at most this much (plus the one line being made) of them.
const OUT_BYTES: usize = 16 << 20;
/// A single line that makes no progress for this long means the client is gone.
const WRITE_STALL: Duration = Duration::from_secs(30);
/// Most subscription patterns one connection may hold (per push format).
const MAX_PATTERNS: usize = 256;
/// Longest accepted agent or session id; they end up in every audit entry and event.
const MAX_ID_LEN: usize = 256;
/// The notification sent when a subscriber fell behind and events were dropped.
const LAGGED: &str = "events.lagged";

/// Per-connection limits from `IpcConfig`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) max_line_bytes: usize,
    pub(crate) max_batch: usize,
}

/// Serve one accepted (and uid-checked) connection until EOF, a fatal framing error, a
/// dead writer, or shutdown. `_permit` holds the connection's slot until we return.
pub(crate) async fn serve_connection<S: Host>(
    exec: Arc<Executor<S>>,
    stream: UnixStream,
    limits: Limits,
    cancel: CancellationToken,
    _permit: OwnedSemaphorePermit,
) {
    let person = at_terminal(stream.peer_cred().ok().and_then(|c| c.pid()));
    let (read_half, write_half) = stream.into_split();
    let (tx, rx) = mpsc::channel(OUT_QUEUE);
    let tx = Outbox {
        tx,
        bytes: Arc::new(tokio::sync::Semaphore::new(OUT_BYTES)),
    };
    let writer = tokio::spawn(write_lines(write_half, rx));
    let codec =
        AnyDelimiterCodec::new_with_max_length(vec![b'\n'], vec![b'\n'], limits.max_line_bytes);
    let mut frames = FramedRead::new(read_half, codec);
    let mut conn = Conn {
        exec,
        out: tx,
        limits,
        identity: Identity::default(),
        subs: Arc::new(Mutex::new(Subscriptions::default())),
        forwarder: None,
        person,
        approver: None,
    };
    loop {
        let frame = tokio::select! {
            biased;
            _ = cancel.cancelled() => break,
            frame = frames.next() => frame,
        };
        match frame {
            None => break,
            Some(Ok(line)) => {
                if !conn.handle_line(&line).await {
                    break;
                }
            }
            Some(Err(AnyDelimiterCodecError::MaxChunkLengthExceeded)) => {
                conn.audit_refusal("(frame)", ErrorCode::TooLarge);
                let err = CommandError::new(
                    ErrorCode::TooLarge,
                    format!(
                        "request line exceeds {} bytes; the connection is closed",
                        limits.max_line_bytes
                    ),
                )
                .with_details(json!({ "maxLineBytes": limits.max_line_bytes }))
                .with_suggestion(
                    "send smaller requests (split batches, or write large content to a file first)",
                );
                conn.send(&Response::error(Id::Null, err)).await;
                break;
            }
            Some(Err(AnyDelimiterCodecError::Io(_))) => break,
        }
    }
    // Dropping the connection aborts the event forwarder and closes the channel; the writer
    // then flushes what is queued and shuts the socket down.
    drop(conn);
    let _ = writer.await;
}

/// A line with the share of the byte budget it holds until written.
type Queued = (String, tokio::sync::OwnedSemaphorePermit);

/// The writer's queue, bounded in lines and in bytes.
#[derive(Clone)]
struct Outbox {
    tx: mpsc::Sender<Queued>,
    bytes: Arc<tokio::sync::Semaphore>,
}

impl Outbox {
    /// Queue a line, waiting while the queue is full. False when the writer is gone.
    async fn send(&self, line: String) -> bool {
        // A line bigger than the whole budget takes all of it and goes alone.
        let n = line.len().clamp(1, OUT_BYTES) as u32;
        let Ok(permit) = self.bytes.clone().acquire_many_owned(n).await else {
            return false;
        };
        self.tx.send((line, permit)).await.is_ok()
    }
}

/// Write queued lines until the channel closes or the client stops reading.
async fn write_lines(mut sink: OwnedWriteHalf, mut lines: mpsc::Receiver<Queued>) {
    while let Some((line, permit)) = lines.recv().await {
        match tokio::time::timeout(WRITE_STALL, sink.write_all(line.as_bytes())).await {
            Ok(Ok(())) => {}
            _ => return,
        }
        drop(permit);
    }
    let _ = sink.shutdown().await;
}

/// Serialise one reply as a line. Values built from `serde_json::Value` always serialise;
/// the fallback exists so that a bug here cannot become a panic.
fn to_line<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_string(value) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        Err(_) => "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"response could not be serialised\"}}\n".to_string(),
    }
}

/// Who the connection says it is (`session.identify`). Defaults to a plain IPC program.
#[derive(Debug, Clone)]
struct Identity {
    kind: SourceKind,
    agent_id: Option<String>,
    session_id: Option<String>,
    /// How this client counts characters in positions (`session.identify`).
    encoding: Option<PositionEncoding>,
}

impl Default for Identity {
    fn default() -> Self {
        Identity {
            kind: SourceKind::Ipc,
            agent_id: None,
            session_id: None,
            encoding: None,
        }
    }
}

impl Identity {
    fn source(&self) -> Source {
        Source {
            kind: self.kind,
            agent_id: self.agent_id.clone(),
            session_id: self.session_id.clone(),
            extension_id: None,
            position_encoding: self.encoding,
        }
    }
}

/// Whether process `pid` is the foreground job of a terminal: it has a controlling
/// terminal and its process group is the one that terminal reads keys for. That is what a
/// person typing into the editor is; an agent's tool call (no terminal, or a background
/// job) is not. Read from `/proc/PID/stat` (fields pgrp, tty_nr and tpgid).
pub(crate) fn at_terminal(pid: Option<i32>) -> bool {
    let Some(pid) = pid.filter(|p| *p > 0) else {
        return false;
    };
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The command name (field 2) may hold spaces and parentheses: fields after it follow
    // the last `)`.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return false;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest: state ppid pgrp session tty_nr tpgid ...
    let num = |i: usize| f.get(i).and_then(|v| v.parse::<i64>().ok());
    match (num(2), num(4), num(5)) {
        (Some(pgrp), Some(tty), Some(tpgid)) => tty != 0 && tpgid > 0 && tpgid == pgrp,
        _ => false,
    }
}

/// A claimed source kind, agent id and session id, checked. `internal` cannot be claimed
/// over a socket, and `human` only by a `person` (a client in the foreground of a
/// terminal, see [`at_terminal`]: the editor attached to a server): both bypass
/// validators and most policy.
fn claim(
    kind: Option<SourceKind>,
    agent_id: Option<String>,
    session_id: Option<String>,
    person: bool,
) -> Result<Identity, CommandError> {
    if kind == Some(SourceKind::Human) && person && agent_id.is_none() {
        return Ok(Identity {
            kind: SourceKind::Human,
            agent_id: None,
            session_id,
            encoding: None,
        });
    }
    if let Some(k @ (SourceKind::Human | SourceKind::Internal)) = kind {
        return Err(CommandError::new(
            ErrorCode::SourceNotAllowed,
            format!(
                "a socket client cannot claim to be `{}` (only the editor, in the foreground of a terminal, is a person); use ai, ipc, cli or extension",
                k.as_str()
            ),
        )
        .with_suggestion("identify as `ai` (with an agentId) or leave the source out"));
    }
    for (name, value) in [("agentId", &agent_id), ("sessionId", &session_id)] {
        if value.as_ref().is_some_and(|v| v.len() > MAX_ID_LEN) {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("{name} is longer than {MAX_ID_LEN} bytes"),
            ));
        }
    }
    let kind = kind.unwrap_or(if agent_id.is_some() {
        SourceKind::Ai
    } else {
        SourceKind::Ipc
    });
    Ok(Identity {
        kind,
        agent_id,
        session_id,
        encoding: None,
    })
}

/// Which wire shape a subscription wants its events in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// `{"jsonrpc":"2.0","method":<event>,"params":{event,data,source}}`
    Rpc,
    /// `{"type":"event","event":..,"data":..}` (seed 000)
    Envelope,
}

/// The patterns a connection subscribed to, shared with its forwarder task.
#[derive(Debug, Default)]
struct Subscriptions {
    rpc: BTreeSet<String>,
    envelope: BTreeSet<String>,
}

impl Subscriptions {
    fn set(&mut self, format: Format) -> &mut BTreeSet<String> {
        match format {
            Format::Rpc => &mut self.rpc,
            Format::Envelope => &mut self.envelope,
        }
    }

    fn is_empty(&self) -> bool {
        self.rpc.is_empty() && self.envelope.is_empty()
    }
}

fn lock(subs: &Mutex<Subscriptions>) -> MutexGuard<'_, Subscriptions> {
    // A poisoned lock only means another task panicked mid-update of a set of strings;
    // the data is still usable.
    subs.lock().unwrap_or_else(|p| p.into_inner())
}

/// Aborts the task when dropped, so a connection that ends (or is aborted) never leaves a
/// forwarder holding the output channel open.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What one request line produces.
enum Reply {
    Rpc(Box<Response>),
    RpcBatch(Vec<Response>),
    Envelope(Box<IpcResponse>),
}

struct Conn<S: Host> {
    exec: Arc<Executor<S>>,
    out: Outbox,
    limits: Limits,
    identity: Identity,
    subs: Arc<Mutex<Subscriptions>>,
    forwarder: Option<AbortOnDrop>,
    /// The peer is in the foreground of a terminal (may identify as `human`).
    person: bool,
    /// Held while a person's connection is open: confirmations are put to them.
    approver: Option<ultra_core::executor::ApproverGuard<S>>,
}

impl<S: Host> Conn<S> {
    /// Queue one line for the writer. False when the writer is gone (client vanished).
    async fn send<T: serde::Serialize>(&self, value: &T) -> bool {
        self.out.send(to_line(value)).await
    }

    /// Handle one line. False when the connection should close.
    async fn handle_line(&mut self, line: &[u8]) -> bool {
        if line.iter().all(u8::is_ascii_whitespace) {
            return true;
        }
        // serde_json's default recursion limit (128) stays on: deeply nested input is a
        // parse error here, not a stack overflow.
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                self.audit_refusal("(parse)", ErrorCode::ParseError);
                let err = CommandError::new(ErrorCode::ParseError, format!("invalid JSON: {e}"))
                    .with_suggestion("send one JSON object (or array, for a batch) per line");
                return self.send(&Response::error(Id::Null, err)).await;
            }
        };
        match self.dispatch(value).await {
            None => true,
            Some(Reply::Rpc(r)) => self.send(&r).await,
            Some(Reply::RpcBatch(rs)) => self.send(&rs).await,
            Some(Reply::Envelope(r)) => self.send(&r).await,
        }
    }

    async fn dispatch(&mut self, value: Value) -> Option<Reply> {
        match value {
            Value::Array(items) => self.rpc_batch(items).await,
            Value::Object(ref obj) if !obj.contains_key("jsonrpc") && obj.contains_key("type") => {
                Some(Reply::Envelope(Box::new(self.envelope(value).await)))
            }
            // JSON-RPC, and everything else: the JSON-RPC parser produces the precise
            // Invalid Request error (with the id, when one could be read).
            other => self
                .rpc_single(other)
                .await
                .map(|r| Reply::Rpc(Box::new(r))),
        }
    }

    // ---- JSON-RPC -------------------------------------------------------------------

    async fn rpc_single(&mut self, value: Value) -> Option<Response> {
        match Request::from_value(value) {
            Ok(req) => self.rpc_call(req).await,
            Err(resp) => {
                self.audit_refusal("(request)", ErrorCode::InvalidRequest);
                Some(*resp)
            }
        }
    }

    async fn rpc_batch(&mut self, items: Vec<Value>) -> Option<Reply> {
        if items.is_empty() {
            self.audit_refusal("(batch)", ErrorCode::InvalidRequest);
            let err = CommandError::new(ErrorCode::InvalidRequest, "empty batch")
                .with_suggestion("a batch is a non-empty array of JSON-RPC requests");
            return Some(Reply::Rpc(Box::new(Response::error(Id::Null, err))));
        }
        if items.len() > self.limits.max_batch {
            self.audit_refusal("(batch)", ErrorCode::TooLarge);
            let err = CommandError::new(
                ErrorCode::TooLarge,
                format!(
                    "batch of {} requests exceeds the limit of {}",
                    items.len(),
                    self.limits.max_batch
                ),
            )
            .with_details(json!({ "maxBatch": self.limits.max_batch }))
            .with_suggestion("split the batch");
            return Some(Reply::Rpc(Box::new(Response::error(Id::Null, err))));
        }
        let mut replies = Vec::new();
        // In order, one at a time: later calls in a batch may depend on earlier ones.
        for item in items {
            if let Some(r) = self.rpc_single(item).await {
                replies.push(r);
            }
        }
        // A batch of notifications gets no reply at all (JSON-RPC 2.0 §6).
        (!replies.is_empty()).then_some(Reply::RpcBatch(replies))
    }

    async fn rpc_call(&mut self, req: Request) -> Option<Response> {
        let Request { id, method, params } = req;
        let outcome: Result<Value, ErrorObject> = match method.as_str() {
            "subscribe" => self.subscribe_rpc(&params).map_err(ErrorObject::from),
            "unsubscribe" => self.unsubscribe_rpc(&params).map_err(ErrorObject::from),
            "session.identify" => self.identify(params).map_err(ErrorObject::from),
            // A registered `api.info` command (if the command set defines one) wins; the
            // transport only fills in when nobody did.
            "api.info" if !self.exec.registry().has("api.info") => Ok(self.api_info()),
            _ => Response::outcome(
                self.exec
                    .execute(&method, params, self.identity.source())
                    .await,
            ),
        };
        Some(Response::answer(id?, outcome))
    }

    fn api_info(&self) -> Value {
        let commands: Vec<_> = self.exec.registry().all().collect();
        json!({ "apiLevel": API_LEVEL, "commands": commands })
    }

    /// Record a request refused before it reached the executor (which audits everything
    /// it runs), so every denial leaves an audit entry. Arguments are not recorded.
    fn audit_refusal(&self, what: &str, code: ErrorCode) {
        self.exec.audit().record(
            &self.identity.source(),
            what,
            &Value::Null,
            code.as_str(),
            0,
        );
    }

    fn identify(&mut self, params: Value) -> Result<Value, CommandError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Params {
            #[serde(default)]
            source: Option<SourceKind>,
            #[serde(default)]
            agent_id: Option<String>,
            #[serde(default)]
            session_id: Option<String>,
            #[serde(default)]
            position_encoding: Option<PositionEncoding>,
        }
        let p: Params = serde_json::from_value(params).map_err(|e| {
            CommandError::new(ErrorCode::InvalidArguments, format!("invalid arguments for session.identify: {e}"))
                .with_suggestion("session.identify {source?: \"ai\"|\"ipc\"|\"cli\"|\"extension\", agentId?: string, sessionId?: string, positionEncoding?: \"utf-32\"|\"utf-16\"|\"utf-8\"}")
        })?;
        self.identity =
            claim(p.source, p.agent_id, p.session_id, self.person).inspect_err(|e| {
                self.audit_refusal("session.identify", e.code);
            })?;
        self.identity.encoding = p.position_encoding;
        // A person's connection answers confirmations while it is open.
        if self.identity.kind == SourceKind::Human && self.approver.is_none() {
            self.approver = Some(self.exec.attach_approver());
        }
        Ok(json!({ "source": self.identity.source() }))
    }

    fn subscribe_rpc(&mut self, params: &Value) -> Result<Value, CommandError> {
        let patterns = read_patterns(params.get("events"))?.ok_or_else(|| {
            CommandError::new(
                ErrorCode::InvalidArguments,
                "subscribe needs `events`: a non-empty array of event names or patterns",
            )
            .with_suggestion("subscribe {\"events\": [\"buffer.*\", \"file.saved\"]}")
        })?;
        let now = self.subscribe(Format::Rpc, patterns)?;
        Ok(json!({ "subscribed": now }))
    }

    fn unsubscribe_rpc(&mut self, params: &Value) -> Result<Value, CommandError> {
        let patterns = read_patterns(params.get("events"))?;
        let (removed, left) = self.unsubscribe(Format::Rpc, patterns);
        Ok(json!({ "unsubscribed": removed, "subscribed": left }))
    }

    // ---- Seed-000 envelope ----------------------------------------------------------

    async fn envelope(&mut self, value: Value) -> IpcResponse {
        let raw_id = value.get("id").cloned().unwrap_or(Value::Null);
        let req: IpcRequest = match serde_json::from_value(value) {
            Ok(r) => r,
            Err(e) => {
                return envelope_error(
                    raw_id,
                    ErrorCode::InvalidRequest.as_str(),
                    format!("invalid request: {e}"),
                );
            }
        };
        // Per-request identity; fields left out fall back to what the connection declared.
        let identity = if req.source.is_some() || req.agent_id.is_some() || req.session_id.is_some()
        {
            let kind = req.source.or(if req.agent_id.is_some() {
                None
            } else {
                Some(self.identity.kind)
            });
            let agent = req
                .agent_id
                .clone()
                .or_else(|| self.identity.agent_id.clone());
            let session = req
                .session_id
                .clone()
                .or_else(|| self.identity.session_id.clone());
            match claim(kind, agent, session, self.person) {
                Ok(mut i) => {
                    i.encoding = self.identity.encoding;
                    i
                }
                Err(e) => return envelope_error(req.id, e.code.as_str(), e.message),
            }
        } else {
            self.identity.clone()
        };
        let id = req.id.clone();
        match req.kind.as_str() {
            "execute" => {
                let Some(command) = req.command.as_deref() else {
                    return envelope_error(id, "MISSING_COMMAND", "Command is required".into());
                };
                let result = self
                    .exec
                    .execute(command, args_or_empty(req.args), identity.source())
                    .await;
                envelope_ok(id, IpcResult::One(Box::new(result)))
            }
            "batch" => {
                let commands = match req.commands {
                    Some(c) if !c.is_empty() => c,
                    _ => {
                        return envelope_error(
                            id,
                            "MISSING_COMMANDS",
                            "Commands array is required".into(),
                        );
                    }
                };
                if commands.len() > self.limits.max_batch {
                    let msg = format!(
                        "batch of {} commands exceeds the limit of {}",
                        commands.len(),
                        self.limits.max_batch
                    );
                    return envelope_error(id, ErrorCode::TooLarge.as_str(), msg);
                }
                let source = identity.source();
                let mut results = Vec::with_capacity(commands.len());
                for item in commands {
                    results.push(
                        self.exec
                            .execute(&item.command, args_or_empty(item.args), source.clone())
                            .await,
                    );
                }
                envelope_ok(id, IpcResult::Many(results))
            }
            "query" => {
                let list: Vec<Value> = self
                    .exec
                    .registry()
                    .ai_exposed()
                    .map(|c| json!({ "id": c.id, "title": c.title, "description": c.description, "category": c.category, "args": c.args }))
                    .collect();
                envelope_ok(
                    id,
                    IpcResult::One(Box::new(CommandResult::ok(Value::Array(list)))),
                )
            }
            "subscribe" => {
                let patterns = match req.events.map(validate_patterns) {
                    Some(Ok(p)) if !p.is_empty() => p,
                    Some(Err(e)) => return envelope_error(id, e.code.as_str(), e.message),
                    _ => {
                        return envelope_error(
                            id,
                            "MISSING_EVENTS",
                            "Events array is required".into(),
                        );
                    }
                };
                match self.subscribe(Format::Envelope, patterns) {
                    Ok(now) => envelope_ok(
                        id,
                        IpcResult::One(Box::new(CommandResult::ok(json!({ "subscribed": now })))),
                    ),
                    Err(e) => envelope_error(id, e.code.as_str(), e.message),
                }
            }
            "unsubscribe" => {
                let patterns = match req.events.map(validate_patterns).transpose() {
                    Ok(p) => p,
                    Err(e) => return envelope_error(id, e.code.as_str(), e.message),
                };
                let (removed, left) = self.unsubscribe(Format::Envelope, patterns);
                envelope_ok(
                    id,
                    IpcResult::One(Box::new(CommandResult::ok(
                        json!({ "unsubscribed": removed, "subscribed": left }),
                    ))),
                )
            }
            other => envelope_error(
                id,
                ErrorCode::UnknownRequest.as_str(),
                format!("Unknown request type: {other}"),
            ),
        }
    }

    // ---- Subscriptions --------------------------------------------------------------

    /// Add patterns; returns the patterns now active in that format.
    fn subscribe(
        &mut self,
        format: Format,
        patterns: Vec<String>,
    ) -> Result<Vec<String>, CommandError> {
        let now = {
            let mut subs = lock(&self.subs);
            let set = subs.set(format);
            let added = patterns.iter().filter(|p| !set.contains(*p)).count();
            if set.len() + added > MAX_PATTERNS {
                return Err(CommandError::new(
                    ErrorCode::TooLarge,
                    format!("a connection may hold at most {MAX_PATTERNS} subscription patterns"),
                )
                .with_suggestion("use prefix patterns such as `buffer.*`, or `*` for everything"));
            }
            set.extend(patterns);
            set.iter().cloned().collect()
        };
        if self.forwarder.is_none() {
            // Subscribe to the bus before answering, so every event emitted after the
            // client reads our reply reaches it.
            let rx = self.exec.events().subscribe();
            let task = tokio::spawn(forward_events(rx, self.subs.clone(), self.out.clone()));
            self.forwarder = Some(AbortOnDrop(task));
        }
        Ok(now)
    }

    /// Remove patterns (all of this format when `None`); returns (removed, remaining).
    fn unsubscribe(
        &mut self,
        format: Format,
        patterns: Option<Vec<String>>,
    ) -> (Vec<String>, Vec<String>) {
        let (removed, left, idle) = {
            let mut subs = lock(&self.subs);
            let set = subs.set(format);
            let removed: Vec<String> = match patterns {
                None => std::mem::take(set).into_iter().collect(),
                Some(ps) => ps.into_iter().filter(|p| set.remove(p)).collect(),
            };
            let left: Vec<String> = set.iter().cloned().collect();
            (removed, left, subs.is_empty())
        };
        if idle {
            // Release the bus receiver: an idle receiver would only fill up and lag.
            self.forwarder = None;
        }
        (removed, left)
    }
}

/// Push matching events to the connection until it goes away.
async fn forward_events(
    mut rx: broadcast::Receiver<Event>,
    subs: Arc<Mutex<Subscriptions>>,
    out: Outbox,
) {
    loop {
        let lines = match rx.recv().await {
            Ok(ev) => {
                let (rpc, envelope) = {
                    let s = lock(&subs);
                    (
                        s.rpc.iter().any(|p| pattern_matches(p, &ev.event)),
                        s.envelope.iter().any(|p| pattern_matches(p, &ev.event)),
                    )
                };
                let mut lines = Vec::new();
                if rpc {
                    let mut params = Map::new();
                    params.insert("event".into(), Value::String(ev.event.clone()));
                    params.insert("data".into(), ev.data.clone());
                    if let Some(src) = &ev.source {
                        params.insert(
                            "source".into(),
                            serde_json::to_value(src).unwrap_or(Value::Null),
                        );
                    }
                    lines.push(to_line(&Notification::new(
                        ev.event.clone(),
                        Value::Object(params),
                    )));
                }
                if envelope {
                    lines.push(to_line(&IpcEvent {
                        kind: "event".into(),
                        event: ev.event,
                        data: ev.data,
                    }));
                }
                lines
            }
            Err(RecvError::Lagged(missed)) => {
                let (rpc, envelope) = {
                    let s = lock(&subs);
                    (!s.rpc.is_empty(), !s.envelope.is_empty())
                };
                let data = json!({ "missed": missed });
                let mut lines = Vec::new();
                if rpc {
                    lines.push(to_line(&Notification::new(LAGGED, data.clone())));
                }
                if envelope {
                    lines.push(to_line(&IpcEvent {
                        kind: "event".into(),
                        event: LAGGED.into(),
                        data,
                    }));
                }
                lines
            }
            Err(RecvError::Closed) => return,
        };
        for line in lines {
            if !out.send(line).await {
                return;
            }
        }
    }
}

/// Read an optional `events` member: absent or null → `None`; otherwise a list of
/// non-empty strings.
fn read_patterns(v: Option<&Value>) -> Result<Option<Vec<String>>, CommandError> {
    let bad = || {
        CommandError::new(
            ErrorCode::InvalidArguments,
            "`events` must be an array of event names or patterns",
        )
        .with_suggestion("{\"events\": [\"buffer.*\", \"file.saved\"]}; `*` matches every event")
    };
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::String(s) => out.push(s.clone()),
                    _ => return Err(bad()),
                }
            }
            validate_patterns(out).map(|p| (!p.is_empty()).then_some(p))
        }
        Some(_) => Err(bad()),
    }
}

fn validate_patterns(patterns: Vec<String>) -> Result<Vec<String>, CommandError> {
    if patterns.len() > MAX_PATTERNS {
        return Err(CommandError::new(
            ErrorCode::TooLarge,
            format!("at most {MAX_PATTERNS} patterns per subscription"),
        ));
    }
    if patterns
        .iter()
        .any(|p| p.is_empty() || p.len() > MAX_ID_LEN)
    {
        return Err(CommandError::new(
            ErrorCode::InvalidArguments,
            "event patterns must be non-empty names of at most 256 bytes",
        ));
    }
    Ok(patterns)
}

/// Missing args are an empty object, as in JSON-RPC where absent params are `{}`.
fn args_or_empty(args: Option<Value>) -> Value {
    match args {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v) => v,
    }
}

fn envelope_ok(id: Value, result: IpcResult) -> IpcResponse {
    IpcResponse {
        id,
        success: true,
        result: Some(result),
        error: None,
    }
}

fn envelope_error(id: Value, code: &str, message: String) -> IpcResponse {
    IpcResponse {
        id,
        success: false,
        result: None,
        error: Some(WireError {
            code: code.to_string(),
            message,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims() {
        assert_eq!(
            claim(None, None, None, false).unwrap().kind,
            SourceKind::Ipc
        );
        assert_eq!(
            claim(None, Some("a".into()), None, false).unwrap().kind,
            SourceKind::Ai
        );
        assert_eq!(
            claim(Some(SourceKind::Cli), Some("a".into()), None, false)
                .unwrap()
                .kind,
            SourceKind::Cli
        );
        assert_eq!(
            claim(Some(SourceKind::Human), None, None, false)
                .unwrap_err()
                .code,
            ErrorCode::SourceNotAllowed
        );
        assert_eq!(
            claim(Some(SourceKind::Internal), None, None, false)
                .unwrap_err()
                .code,
            ErrorCode::SourceNotAllowed
        );
        assert_eq!(
            claim(None, Some("x".repeat(300)), None, false)
                .unwrap_err()
                .code,
            ErrorCode::InvalidArguments
        );
    }

    #[test]
    fn only_a_person_at_a_terminal_is_human() {
        assert_eq!(
            claim(Some(SourceKind::Human), None, Some("ed".into()), true)
                .unwrap()
                .kind,
            SourceKind::Human
        );
        // A person does not speak for an agent, and nobody is `internal`.
        assert!(claim(Some(SourceKind::Human), Some("claude".into()), None, true).is_err());
        assert!(claim(Some(SourceKind::Internal), None, None, true).is_err());
        assert!(!at_terminal(None));
        assert!(!at_terminal(Some(0)));
        assert!(!at_terminal(Some(i32::MAX)));
    }

    #[test]
    fn outcome_mapping() {
        let mut ok = CommandResult::ok(json!({"a": 1}));
        ok.warnings.push(ultra_protocol::Warning {
            code: "W".into(),
            message: "m".into(),
            location: None,
        });
        let v = Response::outcome(ok).unwrap();
        assert_eq!(v["_warnings"][0]["code"], "W");
        let mut bad = CommandResult::err(CommandError::new(ErrorCode::FileNotFound, "nope"));
        bad.feedback = Some(Default::default());
        let e = Response::outcome(bad).unwrap_err();
        assert_eq!(e.code, -32002);
        let data = e.data.unwrap();
        assert_eq!(data["code"], "FILE_NOT_FOUND");
        assert!(data.get("feedback").is_some());
    }
}
