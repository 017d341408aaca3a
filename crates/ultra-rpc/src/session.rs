//! One client's JSON-RPC session, whatever carries it: its identity, its subscriptions,
//! the batch limit, the methods the session itself answers, and the audit of requests
//! refused before they reach the executor (which audits everything it runs).

use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use ultra_core::executor::ApproverGuard;
use ultra_core::{Executor, Host};
use ultra_protocol::jsonrpc::{ErrorObject, Id, Request, Response};
use ultra_protocol::{API_LEVEL, CommandError, ErrorCode, PositionEncoding, Source, SourceKind};

use crate::subscriptions::{Format, Subscriptions, lock, read_patterns};
use crate::{Identity, claim};

/// A client's session on one connection.
pub struct Session<S: Host> {
    exec: Arc<Executor<S>>,
    identity: Identity,
    subs: Arc<Mutex<Subscriptions>>,
    max_batch: usize,
    /// `session.identify` is answered, and whether the peer is a person (may identify as
    /// `human`); `None` where identity comes from elsewhere (the WebSocket's sign-in).
    identify: Option<bool>,
    /// Held while a person's session is open: confirmations are put to them.
    approver: Option<ApproverGuard<S>>,
}

impl<S: Host> Session<S> {
    /// A session of `identity` whose batches hold at most `max_batch` requests.
    pub fn new(exec: Arc<Executor<S>>, identity: Identity, max_batch: usize) -> Session<S> {
        Session {
            exec,
            identity,
            subs: Arc::new(Mutex::new(Subscriptions::default())),
            max_batch,
            identify: None,
            approver: None,
        }
    }

    /// Answer `session.identify`; `person` says whether the peer may claim `human`.
    pub fn identifiable(mut self, person: bool) -> Session<S> {
        self.identify = Some(person);
        self
    }

    /// The executor calls run on.
    pub fn exec(&self) -> &Arc<Executor<S>> {
        &self.exec
    }

    /// Who the caller is.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Replace the caller's identity (the WebSocket, once signed in).
    pub fn set_identity(&mut self, identity: Identity) {
        self.identity = identity;
    }

    /// The source calls run with.
    pub fn source(&self) -> Source {
        self.identity.source()
    }

    /// The most requests one batch may hold.
    pub fn max_batch(&self) -> usize {
        self.max_batch
    }

    /// Put confirmations to this session's person while it is open.
    pub fn attach_approver(&mut self) {
        if self.approver.is_none() {
            self.approver = Some(self.exec.attach_approver());
        }
    }

    /// The patterns subscribed to, shared with whatever pushes events to the client.
    pub fn subscriptions(&self) -> &Arc<Mutex<Subscriptions>> {
        &self.subs
    }

    /// Whether any pattern is subscribed to (the transport listens to the bus only then).
    pub fn subscribed(&self) -> bool {
        !lock(&self.subs).is_empty()
    }

    /// Whether a pattern of this format matches `event`.
    pub fn wants(&self, format: Format, event: &str) -> bool {
        lock(&self.subs).matches(format, event)
    }

    /// Record a request refused before it reached the executor, so every denial leaves an
    /// audit entry. Arguments are not recorded.
    pub fn refuse(&self, what: &str, code: ErrorCode) {
        self.exec
            .audit()
            .record(&self.source(), what, &Value::Null, code.as_str(), 0);
    }

    /// The answer to a message that is not JSON, audited; `suggestion` says what the
    /// transport expects instead.
    pub fn parse_error(&self, e: &serde_json::Error, suggestion: &str) -> Response {
        self.refuse("(parse)", ErrorCode::ParseError);
        let err = CommandError::new(ErrorCode::ParseError, format!("invalid JSON: {e}"))
            .with_suggestion(suggestion);
        Response::error(Id::Null, err)
    }

    /// Read one JSON-RPC request from its raw JSON text (so its id is echoed as sent); an
    /// invalid one is audited and answered.
    pub fn request(&self, raw: &RawValue) -> Result<Request, Box<Response>> {
        Request::from_raw(raw).map_err(|invalid| {
            self.refuse("(request)", invalid.error.code);
            Box::new(Response::from(*invalid))
        })
    }

    /// Check a batch's size before any of it runs; a refusal is audited and answered.
    pub fn check_batch(&self, len: usize) -> Result<(), Box<Response>> {
        let err = if len == 0 {
            self.refuse("(batch)", ErrorCode::InvalidRequest);
            CommandError::new(ErrorCode::InvalidRequest, "empty batch")
                .with_suggestion("a batch is a non-empty array of JSON-RPC requests")
        } else if len > self.max_batch {
            self.refuse("(batch)", ErrorCode::TooLarge);
            CommandError::new(
                ErrorCode::TooLarge,
                format!(
                    "batch of {len} requests exceeds the limit of {}",
                    self.max_batch
                ),
            )
            .with_details(json!({ "maxBatch": self.max_batch }))
            .with_suggestion("split the batch")
        } else {
            return Ok(());
        };
        Err(Box::new(Response::error(Id::Null, err)))
    }

    /// Answer a method the session itself handles, or `None` for one the executor runs.
    /// `subscribe` and `events.subscribe` (and their `unsubscribe`s) are the same method
    /// under the Unix socket's and the WebSocket's original names.
    pub fn answer(&mut self, method: &str, params: &Value) -> Option<Result<Value, ErrorObject>> {
        let outcome = match method {
            "subscribe" | "events.subscribe" => self.subscribe_rpc(params),
            "unsubscribe" | "events.unsubscribe" => self.unsubscribe_rpc(params),
            "session.identify" if self.identify.is_some() => self.identify(params.clone()),
            // A registered `api.info` command (if the command set defines one) wins; the
            // session only fills in when nobody did.
            "api.info" if !self.exec.registry().has("api.info") => Ok(self.api_info()),
            _ => return None,
        };
        Some(outcome.map_err(ErrorObject::from))
    }

    fn api_info(&self) -> Value {
        let commands: Vec<_> = self.exec.registry().all().collect();
        json!({ "apiLevel": API_LEVEL, "commands": commands })
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
        let person = self.identify.unwrap_or(false);
        self.identity = claim(p.source, p.agent_id, p.session_id, person).inspect_err(|e| {
            self.refuse("session.identify", e.code);
        })?;
        self.identity.encoding = p.position_encoding;
        // A person's connection answers confirmations while it is open.
        if self.identity.kind == SourceKind::Human {
            self.attach_approver();
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

    /// Add patterns; returns the patterns now active in that format.
    pub fn subscribe(
        &mut self,
        format: Format,
        patterns: Vec<String>,
    ) -> Result<Vec<String>, CommandError> {
        lock(&self.subs).add(format, patterns)
    }

    /// Remove patterns (all of this format when `None`); returns (removed, remaining).
    pub fn unsubscribe(
        &mut self,
        format: Format,
        patterns: Option<Vec<String>>,
    ) -> (Vec<String>, Vec<String>) {
        lock(&self.subs).remove(format, patterns)
    }
}
