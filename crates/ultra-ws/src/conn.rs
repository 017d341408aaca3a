//! One WebSocket connection: the challenge, authentication, then JSON-RPC requests into
//! the executor, with a rate limit and an idle timeout. The session itself (batch limit,
//! subscriptions, the methods it answers, refusal audit) is `ultra_rpc::Session`, the
//! same as on the Unix socket.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::{Notify, broadcast};
use ultra_core::{Host, Unrecorded};
use ultra_protocol::jsonrpc::{
    ErrorObject, Id, Incoming, Notification, Outgoing, Request, Response, members,
};
use ultra_protocol::{CommandError, ErrorCode, Event, SourceKind};
use ultra_rpc::{Format, Identity, Session};

use crate::{AUTH_DEADLINE, Shared, auth};

/// Close code for a policy violation (RFC 6455 §7.4.1).
const POLICY: u16 = 1008;
/// An idle timeout too large to add to an instant: in effect, none.
const FOREVER: std::time::Duration = std::time::Duration::from_secs(100 * 365 * 24 * 3600);

/// A token bucket: `rate` requests a second, bursts up to `rate`.
struct Bucket {
    rate: f64,
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn new(rate: u32) -> Bucket {
        Bucket {
            rate: f64::from(rate.max(1)),
            tokens: f64::from(rate.max(1)),
            at: Instant::now(),
        }
    }

    /// Take `n` tokens if there are that many.
    fn take(&mut self, n: f64) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.rate);
        self.at = now;
        if self.tokens >= n {
            self.tokens -= n;
            true
        } else {
            false
        }
    }
}

struct Conn<S: Host> {
    shared: Arc<Shared<S>>,
    tx: Tx,
    peer: SocketAddr,
    nonce: String,
    /// Set once authenticated.
    session: Option<String>,
    /// Identity, subscriptions and limits: an agent until signed in; signed in with a web
    /// UI ticket, the person at the browser (source `human`).
    rpc: Session<S>,
    bucket: Option<Bucket>,
    /// Events, from the first terminal call on (only terminal events are pushed, and
    /// listening earlier would wake this connection for every command anyone runs).
    events: Option<broadcast::Receiver<Event>>,
    /// Its place among the connections waiting to authenticate.
    waiting: u64,
    /// The record of the read-only call being answered, written after its reply.
    after: Option<Unrecorded>,
    /// The reply being sent as text, freed once it is out: the client waits for the text,
    /// not for this.
    spent: Option<Outgoing>,
}

/// What to do after a message.
enum Next {
    Reply(Option<String>),
    /// Send this, then close.
    Close(String, &'static str),
}

pub(crate) async fn serve<S: Host>(socket: WebSocket, shared: Arc<Shared<S>>, peer: SocketAddr) {
    let (mut tx, rx) = socket.split();
    let Ok(nonce) = auth::random_hex(16) else {
        return;
    };
    let challenge = Notification::new("auth.challenge", json!({ "nonce": nonce }));
    if tx
        .send(Message::Text(to_text(&challenge).into()))
        .await
        .is_err()
    {
        return;
    }
    let bucket = shared.opts.requests_per_second.map(Bucket::new);
    let rpc = Session::new(
        shared.exec.clone(),
        Identity::of(SourceKind::Ai),
        shared.opts.max_batch,
    );
    let mut conn = Conn {
        tx,
        waiting: shared.waiting.ticket(),
        shared,
        peer,
        nonce,
        session: None,
        rpc,
        bucket,
        events: None,
        after: None,
        spent: None,
    };
    let evicted = conn.shared.waiting.join(conn.waiting);
    conn.run(rx, &evicted).await;
    conn.shared.waiting.leave(conn.waiting);
    // Whatever the session held (its terminals) goes with it.
    if let Some(session) = &conn.session {
        conn.shared.exec.services().session_closed(session);
    }
}

type Tx = futures_util::stream::SplitSink<WebSocket, Message>;
type Rx = futures_util::stream::SplitStream<WebSocket>;

/// The next event, or never when not subscribed (yet).
async fn next_event(events: &mut Option<broadcast::Receiver<Event>>) -> Option<Event> {
    match events {
        None => std::future::pending().await,
        Some(rx) => loop {
            match rx.recv().await {
                Ok(e) => return Some(e),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        },
    }
}

impl<S: Host> Conn<S> {
    async fn run(&mut self, mut rx: Rx, evicted: &Notify) {
        let idle = self.shared.opts.idle_timeout;
        let opened = Instant::now();
        let mut last = opened;
        // One timer for the connection, moved only when it fires early: a timer set anew
        // for every message would wake the thread that drives the timers, each time.
        let timer = tokio::time::sleep(AUTH_DEADLINE);
        tokio::pin!(timer);
        loop {
            let mut events = self.events.take();
            // Before authentication the deadline is short; after it, the idle timeout.
            let deadline = match self.session {
                None => opened + AUTH_DEADLINE,
                Some(_) => last.checked_add(idle).unwrap_or(opened + FOREVER),
            };
            // Signing in can bring the deadline forward (an idle timeout shorter than the
            // time left to authenticate); a later one waits until the timer fires.
            let deadline = tokio::time::Instant::from_std(deadline);
            if deadline < timer.deadline() {
                timer.as_mut().reset(deadline);
            }
            let msg = tokio::select! {
                m = rx.next() => Ok(m),
                () = &mut timer => {
                    if tokio::time::Instant::now() < deadline {
                        timer.as_mut().reset(deadline);
                        self.events = events;
                        continue;
                    }
                    Err(())
                }
                () = evicted.notified(), if self.session.is_none() => {
                    let _ = self.tx.send(close("too many connections waiting to authenticate")).await;
                    return;
                }
                e = next_event(&mut events) => {
                    let open = self.pass_on(e, &mut events).await;
                    self.events = events;
                    // Events flowing out keep a session alive, as its messages do.
                    last = Instant::now();
                    if !open {
                        return;
                    }
                    continue;
                }
            };
            self.events = events;
            last = Instant::now();
            let msg = match msg {
                Err(_) => {
                    let why = if self.session.is_none() {
                        "authentication timed out"
                    } else {
                        "session idle for too long"
                    };
                    let _ = self.tx.send(close(why)).await;
                    return;
                }
                Ok(None | Some(Err(_))) => return,
                Ok(Some(Ok(m))) => m,
            };
            let next = match msg {
                Message::Text(t) => self.handle(t.as_str()).await,
                Message::Binary(_) => Next::Reply(Some(to_text(&Response::error(
                    Id::Null,
                    CommandError::new(
                        ErrorCode::InvalidRequest,
                        "binary messages are not JSON-RPC",
                    )
                    .with_suggestion("send each request as a text message"),
                )))),
                Message::Close(_) => return,
                // Pings are answered by the library.
                _ => Next::Reply(None),
            };
            // Only a single call's reply carries its record; it is written once the reply is.
            let (after, spent) = (self.after.take(), self.spent.take());
            match next {
                Next::Reply(None) => {}
                Next::Reply(Some(text)) => {
                    let sent = self.tx.send(Message::Text(text.into())).await;
                    drop(after);
                    drop(spent);
                    if sent.is_err() {
                        return;
                    }
                }
                Next::Close(text, why) => {
                    let _ = self.tx.send(Message::Text(text.into())).await;
                    let _ = self.tx.send(close(why)).await;
                    return;
                }
            }
        }
    }

    /// Push an event to the client if it is this session's; false when the client is gone.
    async fn pass_on(
        &mut self,
        e: Option<Event>,
        events: &mut Option<broadcast::Receiver<Event>>,
    ) -> bool {
        match e {
            Some(e) if self.owns(&e) => {
                // Seed 003's terminal events carry their data as params; subscribed ones
                // say who caused them, as on the Unix socket: {event, data, source}.
                let note = if self.own_terminal(&e) {
                    Notification::new(e.event, e.data)
                } else {
                    let params = json!({ "event": e.event, "data": e.data, "source": e.source });
                    Notification::new(e.event, params)
                };
                self.tx
                    .send(Message::Text(to_text(&note).into()))
                    .await
                    .is_ok()
            }
            Some(_) => true,
            None => {
                *events = None;
                true
            }
        }
    }

    /// Whether an event is this session's to receive: terminal output and closings of
    /// terminals it created, and whatever it subscribed to.
    fn owns(&self, e: &Event) -> bool {
        self.own_terminal(e) || self.rpc.wants(Format::Rpc, &e.event)
    }

    /// Output or the end of a terminal this session created.
    fn own_terminal(&self, e: &Event) -> bool {
        e.event.starts_with("terminal.")
            && self.session.is_some()
            && e.source.as_ref().and_then(|s| s.session_id.as_ref()) == self.session.as_ref()
    }
}

fn close(reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code: POLICY,
        reason: reason.into(),
    }))
}

fn to_text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| {
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"unserializable reply"}}"#
            .to_string()
    })
}

impl<S: Host> Conn<S> {
    async fn handle(&mut self, text: &str) -> Next {
        // Requests stay raw JSON text until read, so ids echo exactly as sent.
        let incoming = match Incoming::parse(text.as_bytes()) {
            Ok(m) => m,
            Err(e) => {
                let suggestion = "send one JSON-RPC 2.0 request (or a batch array) per message";
                return Next::Reply(Some(to_text(&self.rpc.parse_error(&e, suggestion))));
            }
        };
        if self.session.is_none() {
            return self.authenticate(incoming).await;
        }
        let cost = match &incoming {
            // An oversized batch is refused whole, before it can drain the bucket.
            Incoming::Batch(items) if items.len() > self.rpc.max_batch() => {
                let refused = self.rpc.check_batch(items.len()).err();
                return Next::Reply(refused.map(|r| to_text(&*r)));
            }
            Incoming::Batch(items) => items.len().max(1) as f64,
            Incoming::One(_) => 1.0,
        };
        if let Some(b) = &mut self.bucket
            && !b.take(cost)
        {
            self.rpc.refuse("(rate)", ErrorCode::RateLimited);
            let id = match &incoming {
                Incoming::One(raw) => members(raw)
                    .and_then(|obj| obj.get("id").and_then(|i| Id::from_raw(i)))
                    .unwrap_or(Id::Null),
                Incoming::Batch(_) => Id::Null,
            };
            let err = CommandError::new(ErrorCode::RateLimited, "too many requests")
                .with_details(json!({ "requestsPerSecond": b.rate }))
                .with_suggestion("slow down; requests are limited per connection");
            return Next::Reply(Some(to_text(&Response::error(id, err))));
        }
        match incoming {
            Incoming::Batch(items) => self.batch(items).await,
            Incoming::One(raw) => {
                let reply = self.single(&raw).await;
                let text = reply.as_ref().map(to_text);
                self.spent = reply;
                Next::Reply(text)
            }
        }
    }

    /// Before authentication: only `auth.authenticate`, once; a failure closes.
    async fn authenticate(&mut self, incoming: Incoming) -> Next {
        let Incoming::One(raw) = incoming else {
            self.rpc.refuse("(batch)", ErrorCode::Unauthorized);
            let err = CommandError::new(ErrorCode::Unauthorized, "a batch before authentication")
                .with_suggestion(
                    "answer the auth.challenge first: auth.authenticate {token, nonce}",
                );
            return Next::Reply(Some(to_text(&Response::error(Id::Null, err))));
        };
        let req = match self.rpc.request(&raw) {
            Ok(r) => r,
            Err(resp) => return Next::Reply(Some(to_text(&*resp))),
        };
        let id = req.id.clone().unwrap_or(Id::Null);
        if req.method != "auth.authenticate" {
            self.rpc.refuse(&req.method, ErrorCode::Unauthorized);
            let err = CommandError::new(
                ErrorCode::Unauthorized,
                format!("`{}` before authentication", req.method),
            )
            .with_suggestion("answer the auth.challenge first: auth.authenticate {token, nonce}");
            return Next::Reply(Some(to_text(&Response::error(id, err))));
        }
        let peer = self.peer.ip();
        match self.shared.backoff.admit(peer) {
            Ok(wait) => tokio::time::sleep(wait).await,
            Err(retry) => {
                self.rpc
                    .refuse("auth.authenticate", ErrorCode::Unauthorized);
                let err = CommandError::new(
                    ErrorCode::Unauthorized,
                    "authentication failed: too many failed attempts from this address",
                )
                .with_details(
                    json!({ "authenticated": false, "retryAfterMs": retry.as_millis() as u64 }),
                )
                .with_suggestion("wait, then authenticate once with the right token");
                return Next::Close(to_text(&Response::error(id, err)), "authentication failed");
            }
        }
        let p = &req.params;
        let nonce_ok = p.get("nonce").and_then(Value::as_str) == Some(self.nonce.as_str());
        let token = &self.shared.opts.token;
        let mut human = false;
        let secret_ok = match (p.get("token"), p.get("signature"), p.get("ticket")) {
            (Some(Value::String(t)), _, _) => token.matches(t),
            (_, Some(Value::String(s)), _) => token.signed(&self.nonce, s),
            (_, _, Some(Value::String(t))) if self.shared.tickets.valid(t) => {
                // While a person's page is open, agents' calls that need approval wait
                // for it there.
                self.rpc.attach_approver();
                human = true;
                true
            }
            _ => false,
        };
        if nonce_ok && secret_ok {
            let Ok(session) = auth::random_hex(16) else {
                return Next::Close(String::new(), "no randomness");
            };
            let session = format!("session-{session}");
            self.shared.backoff.succeed(peer);
            self.shared.waiting.leave(self.waiting);
            self.session = Some(session.clone());
            let kind = if human {
                SourceKind::Human
            } else {
                SourceKind::Ai
            };
            self.rpc.set_identity(Identity {
                session_id: Some(session.clone()),
                ..Identity::of(kind)
            });
            self.shared.exec.audit().record(
                &self.rpc.source(),
                "auth.authenticate",
                &Value::Null,
                "ok",
                0,
            );
            let result = json!({ "authenticated": true, "sessionId": session });
            return Next::Reply(Some(to_text(&Response::result(id, result))));
        }
        self.rpc
            .refuse("auth.authenticate", ErrorCode::Unauthorized);
        self.shared.backoff.fail(peer);
        let why = if nonce_ok {
            "wrong token"
        } else {
            "the nonce is not the one this connection was sent"
        };
        let err = CommandError::new(ErrorCode::Unauthorized, format!("authentication failed: {why}"))
            .with_details(json!({ "authenticated": false }))
            .with_suggestion("use the token from ultra.config.json, ULTRA_TOKEN, or the token file `ultra serve` printed");
        Next::Close(to_text(&Response::error(id, err)), "authentication failed")
    }

    async fn batch(&mut self, items: Vec<Box<RawValue>>) -> Next {
        if let Err(refused) = self.rpc.check_batch(items.len()) {
            return Next::Reply(Some(to_text(&*refused)));
        }
        let mut replies = Vec::new();
        // In order: later calls may depend on earlier ones.
        for item in items {
            if let Some(r) = self.single(&item).await {
                replies.push(r);
            }
        }
        // A batch of notifications gets no reply (JSON-RPC 2.0 §6).
        Next::Reply((!replies.is_empty()).then(|| to_text(&replies)))
    }

    async fn single(&mut self, raw: &RawValue) -> Option<Outgoing> {
        let req = match self.rpc.request(raw) {
            Ok(r) => r,
            Err(resp) => return Some((*resp).into()),
        };
        let Request { id, method, params } = req;
        // Terminal output is pushed to the session that created the terminal: listen
        // before the first terminal call runs, so none of its output is missed.
        if self.events.is_none() && (method.starts_with("terminal.") || method == "command.execute")
        {
            self.events = Some(self.shared.exec.events().subscribe());
        }
        let outcome: Result<Value, ErrorObject> = if method == "auth.authenticate" {
            Ok(json!({ "authenticated": true, "sessionId": self.session }))
        } else if let Some(answer) = self.rpc.answer(&method, &params) {
            if self.events.is_none() && self.rpc.subscribed() {
                self.events = Some(self.shared.exec.events().subscribe());
            }
            answer
        } else if self.events.is_none() {
            let answered = self
                .shared
                .exec
                .execute_text(&method, params, self.rpc.source())
                .await;
            // A batch's earlier call is recorded now, as the next one starts.
            self.after = answered.unrecorded;
            return Some(Outgoing::answer(id?, answered.result, answered.text));
        } else {
            // A session with terminals: run the call on its own task and keep pushing
            // their output meanwhile (a `terminal.wait` may block for minutes).
            let exec = self.shared.exec.clone();
            let source = self.rpc.source();
            let mut job = tokio::spawn(async move { exec.execute(&method, params, source).await });
            let mut events = self.events.take();
            let done = loop {
                tokio::select! {
                    r = &mut job => break r,
                    e = next_event(&mut events) => {
                        if !self.pass_on(e, &mut events).await {
                            job.abort();
                            self.events = events;
                            return None;
                        }
                    }
                }
            };
            self.events = events;
            match done {
                Ok(result) => Response::outcome(result),
                Err(e) => Err(ErrorObject::from(CommandError::new(
                    ErrorCode::InternalError,
                    format!("the command failed: {e}"),
                ))),
            }
        };
        Some(Response::answer(id?, outcome).into())
    }
}
