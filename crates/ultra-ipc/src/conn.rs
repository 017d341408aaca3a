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

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OwnedSemaphorePermit, broadcast, mpsc};
use tokio::task::JoinHandle;
use tokio_util::codec::{AnyDelimiterCodec, AnyDelimiterCodecError, FramedRead};
use tokio_util::sync::CancellationToken;
use ultra_core::{Executor, Host, Unrecorded};
use ultra_protocol::ipc::{IpcError as WireError, IpcEvent, IpcRequest, IpcResponse, IpcResult};
use ultra_protocol::jsonrpc::{Id, Incoming, Notification, Outgoing, Request, Response, members};
use ultra_protocol::{CommandError, CommandResult, ErrorCode, Event};
use ultra_rpc::subscriptions::{lock, validate_patterns};
use ultra_rpc::{Format, Identity, LAGGED, Session, Subscriptions, claim};

/// Outgoing lines buffered per connection before producers wait for the client to read.
const OUT_QUEUE: usize = 256;
/// Outgoing bytes buffered per connection: a client that pipelines large reads and never
/// reads the answers holds at most this much (plus the one line being made) of them.
const OUT_BYTES: usize = 16 << 20;
/// A single line that makes no progress for this long means the client is gone.
const WRITE_STALL: Duration = Duration::from_secs(30);

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
        session: Session::new(exec, Identity::default(), limits.max_batch).identifiable(person),
        out: tx,
        forwarder: None,
        person,
        after: None,
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
                conn.session.refuse("(frame)", ErrorCode::TooLarge);
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

/// A line with the share of the byte budget it holds until written, and the record of the
/// read-only call it answers, written once the line is.
type Queued = (
    String,
    tokio::sync::OwnedSemaphorePermit,
    Option<Unrecorded>,
);

/// The writer's queue, bounded in lines and in bytes.
#[derive(Clone)]
struct Outbox {
    tx: mpsc::Sender<Queued>,
    bytes: Arc<tokio::sync::Semaphore>,
}

impl Outbox {
    /// Queue a line, waiting while the queue is full. False when the writer is gone.
    async fn send(&self, line: String) -> bool {
        self.send_then(line, None).await
    }

    /// [`Outbox::send`], then record `after` once the line is written.
    async fn send_then(&self, line: String, after: Option<Unrecorded>) -> bool {
        // A line bigger than the whole budget takes all of it and goes alone.
        let n = line.len().clamp(1, OUT_BYTES) as u32;
        let Ok(permit) = self.bytes.clone().acquire_many_owned(n).await else {
            return false;
        };
        self.tx.send((line, permit, after)).await.is_ok()
    }
}

/// Most bytes gathered into one write when replies queue up faster than they are sent.
const WRITE_BATCH: usize = 64 << 10;

/// Write queued lines until the channel closes or the client stops reading. Lines already
/// queued go out together in one write: a client that pipelines gets its replies in a few
/// system calls instead of one per line.
async fn write_lines(mut sink: OwnedWriteHalf, mut lines: mpsc::Receiver<Queued>) {
    let mut held = Vec::new();
    let mut buf = Vec::new();
    while let Some(first) = lines.recv().await {
        held.push(first);
        let mut bytes = held[0].0.len();
        while bytes < WRITE_BATCH {
            let Ok(next) = lines.try_recv() else { break };
            bytes += next.0.len();
            held.push(next);
        }
        let written = if held.len() == 1 {
            tokio::time::timeout(WRITE_STALL, sink.write_all(held[0].0.as_bytes())).await
        } else {
            buf.clear();
            for (line, _, _) in &held {
                buf.extend_from_slice(line.as_bytes());
            }
            tokio::time::timeout(WRITE_STALL, sink.write_all(&buf)).await
        };
        // The replies are on their way: the client reads them while the audit lines are
        // written, and the byte budget they held is free again.
        held.clear();
        if !matches!(written, Ok(Ok(()))) {
            return;
        }
        if buf.capacity() > 4 * WRITE_BATCH {
            buf = Vec::new();
        }
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
    Rpc(Box<Outgoing>),
    RpcBatch(Vec<Outgoing>),
    Envelope(Box<IpcResponse>),
}

struct Conn<S: Host> {
    session: Session<S>,
    out: Outbox,
    forwarder: Option<AbortOnDrop>,
    /// The peer is in the foreground of a terminal (may identify as `human`).
    person: bool,
    /// The record of the read-only call being answered, written after its reply.
    after: Option<Unrecorded>,
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
        // Requests stay raw JSON text until read, so ids echo exactly as sent. Skipping
        // over values is iterative, and reading params or an envelope keeps serde_json's
        // depth limit (128): deeply nested input is an error here, not a stack overflow.
        let incoming = match Incoming::parse(line) {
            Ok(m) => m,
            Err(e) => {
                let suggestion = "send one JSON object (or array, for a batch) per line";
                return self.send(&self.session.parse_error(&e, suggestion)).await;
            }
        };
        let reply = self.dispatch(incoming).await;
        // Only a single call's reply carries its record; anything else is recorded now.
        let after = self.after.take();
        match reply {
            None => true,
            Some(Reply::Rpc(r)) => self.out.send_then(to_line(&r), after).await,
            Some(Reply::RpcBatch(rs)) => self.send(&rs).await,
            Some(Reply::Envelope(r)) => self.send(&r).await,
        }
    }

    async fn dispatch(&mut self, incoming: Incoming) -> Option<Reply> {
        let raw = match incoming {
            Incoming::Batch(items) => return self.rpc_batch(items).await,
            Incoming::One(raw) => raw,
        };
        let envelope = members(&raw)
            .is_some_and(|obj| !obj.contains_key("jsonrpc") && obj.contains_key("type"));
        if envelope {
            let value: Value = match serde_json::from_str(raw.get()) {
                Ok(v) => v,
                Err(e) => {
                    let suggestion = "nest the request less deeply";
                    let reply = self.session.parse_error(&e, suggestion);
                    return Some(Reply::Rpc(Box::new(reply.into())));
                }
            };
            let reply = self.envelope(value).await;
            self.listen();
            return Some(Reply::Envelope(Box::new(reply)));
        }
        // JSON-RPC, and everything else: the JSON-RPC parser produces the precise
        // Invalid Request error (with the id, when one could be read).
        self.rpc_single(&raw).await.map(|r| Reply::Rpc(Box::new(r)))
    }

    // ---- JSON-RPC -------------------------------------------------------------------

    async fn rpc_single(&mut self, raw: &RawValue) -> Option<Outgoing> {
        match self.session.request(raw) {
            Ok(req) => self.rpc_call(req).await,
            Err(resp) => Some((*resp).into()),
        }
    }

    async fn rpc_batch(&mut self, items: Vec<Box<RawValue>>) -> Option<Reply> {
        if let Err(resp) = self.session.check_batch(items.len()) {
            return Some(Reply::Rpc(Box::new((*resp).into())));
        }
        let mut replies = Vec::new();
        // In order, one at a time: later calls in a batch may depend on earlier ones.
        for item in items {
            if let Some(r) = self.rpc_single(&item).await {
                replies.push(r);
            }
        }
        // A batch of notifications gets no reply at all (JSON-RPC 2.0 §6).
        (!replies.is_empty()).then_some(Reply::RpcBatch(replies))
    }

    async fn rpc_call(&mut self, req: Request) -> Option<Outgoing> {
        let Request { id, method, params } = req;
        if let Some(answer) = self.session.answer(&method, &params) {
            self.listen();
            return Some(Response::answer(id?, answer).into());
        }
        let answered = self
            .session
            .exec()
            .execute_text(&method, params, self.session.source())
            .await;
        // A batch's earlier call is recorded now, as the next one starts.
        self.after = answered.unrecorded;
        Some(Outgoing::answer(id?, answered.result, answered.text))
    }

    /// Forward events while anything is subscribed; release the bus receiver otherwise
    /// (an idle receiver would only fill up and lag). Called as soon as subscriptions may
    /// have changed, before the answer goes out, so every event emitted after the client
    /// reads it (or after that call in a batch) reaches the client.
    fn listen(&mut self) {
        if !self.session.subscribed() {
            self.forwarder = None;
        } else if self.forwarder.is_none() {
            let rx = self.session.exec().events().subscribe();
            let subs = self.session.subscriptions().clone();
            let task = tokio::spawn(forward_events(rx, subs, self.out.clone()));
            self.forwarder = Some(AbortOnDrop(task));
        }
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
            let own = self.session.identity();
            let kind = req.source.or(if req.agent_id.is_some() {
                None
            } else {
                Some(own.kind)
            });
            let agent = req.agent_id.clone().or_else(|| own.agent_id.clone());
            let session = req.session_id.clone().or_else(|| own.session_id.clone());
            match claim(kind, agent, session, self.person) {
                Ok(mut i) => {
                    i.encoding = own.encoding;
                    i
                }
                Err(e) => return envelope_error(req.id, e.code.as_str(), e.message),
            }
        } else {
            self.session.identity().clone()
        };
        let id = req.id.clone();
        match req.kind.as_str() {
            "execute" => {
                let Some(command) = req.command.as_deref() else {
                    return envelope_error(id, "MISSING_COMMAND", "Command is required".into());
                };
                let result = self
                    .session
                    .exec()
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
                if commands.len() > self.session.max_batch() {
                    let msg = format!(
                        "batch of {} commands exceeds the limit of {}",
                        commands.len(),
                        self.session.max_batch()
                    );
                    return envelope_error(id, ErrorCode::TooLarge.as_str(), msg);
                }
                let source = identity.source();
                let mut results = Vec::with_capacity(commands.len());
                for item in commands {
                    results.push(
                        self.session
                            .exec()
                            .execute(&item.command, args_or_empty(item.args), source.clone())
                            .await,
                    );
                }
                envelope_ok(id, IpcResult::Many(results))
            }
            "query" => {
                let list: Vec<Value> = self
                    .session
                    .exec()
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
                match self.session.subscribe(Format::Envelope, patterns) {
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
                let (removed, left) = self.session.unsubscribe(Format::Envelope, patterns);
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
                        s.matches(Format::Rpc, &ev.event),
                        s.matches(Format::Envelope, &ev.event),
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
                    (s.any(Format::Rpc), s.any(Format::Envelope))
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
    fn only_a_process_in_a_terminals_foreground_is_a_person() {
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
