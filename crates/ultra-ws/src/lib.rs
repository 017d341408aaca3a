//! Ultra's WebSocket transport (seed 003): `ws://127.0.0.1:19876` by default, JSON-RPC 2.0
//! (single calls, batches, notifications) over text messages, into the same registry and
//! executor as every other surface.
//!
//! Before the upgrade the `Host` and `Origin` headers are checked ([`guard`]). After it the
//! server sends `auth.challenge` with a fresh nonce; the client answers `auth.authenticate
//! {token, nonce}` (or `{signature, nonce}`, see [`auth::Token::signed`]) and gets
//! `{authenticated, sessionId}`. Nothing else is served before that, a failed attempt closes
//! the connection (after a delay that grows with the peer's failures), and a connection
//! that does not authenticate within [`AUTH_DEADLINE`] is closed. Messages and frames are
//! bounded, each connection is rate-limited (answering -32007), and an idle session
//! expires. Every request is audited: by the executor when it runs, here when refused.
//!
//! The same listener serves the web UI's page (`/ui/`, module `web`), which signs in with a
//! ticket `ultra serve` prints ([`tickets`]) instead of the token: such a session is the
//! person at the browser (source `human`, an approver while open). Any session may subscribe
//! to events (`events.subscribe`, alias `subscribe`): the session, its subscriptions and
//! limits are `ultra_rpc::Session`, the same as on the Unix socket.
//!
//! Like `ultra-ipc`, the crate is generic over [`ultra_core::Host`].

pub mod auth;
mod conn;
pub mod guard;
mod listener;
pub mod tickets;
mod web;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::sync::Notify;
use ultra_core::{Executor, Host};
use ultra_protocol::{ErrorCode, Source, SourceKind};

pub use auth::{Token, TokenSource};

/// How long a new connection has to authenticate (and, before that, to send its upgrade
/// request).
pub const AUTH_DEADLINE: Duration = Duration::from_secs(10);

/// Most connections waiting to authenticate at once; past it the oldest is closed.
pub const MAX_WAITING: usize = 256;

/// Why the WebSocket server could not start.
#[derive(Debug, thiserror::Error)]
pub enum WsError {
    /// The listen address could not be bound.
    #[error(
        "cannot listen on {addr}: {reason} (is another server using the port? set `port` in ultra.config.json)"
    )]
    Bind {
        /// host:port.
        addr: String,
        /// The system's reason.
        reason: String,
    },
    /// The token file or its directory is unusable.
    #[error("websocket token at {path}: {reason}")]
    Token {
        /// The file or directory.
        path: std::path::PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The system's random source failed.
    #[error("no randomness for tokens and nonces: {0}")]
    Random(String),
    /// The server stopped with an I/O error.
    #[error("websocket server: {0}")]
    Io(String),
}

/// What the server needs to know (from `ultra.config.json`'s seed 003 keys).
#[derive(Debug)]
pub struct Options {
    /// Listen host (`host`, default `127.0.0.1`).
    pub host: String,
    /// Listen port (`port`, default 19876; 0 picks a free one).
    pub port: u16,
    /// The shared secret.
    pub token: Token,
    /// `allowedOrigins`: browser origins that may connect; `"*"` admits any.
    pub allowed_origins: Vec<String>,
    /// `ui.httpAllow`: hosts the web UI page may fetch from for agents' `api.call`.
    pub ui_http_allow: Vec<String>,
    /// `rateLimit.requestsPerSecond` per connection; `None` when rate limiting is off.
    pub requests_per_second: Option<u32>,
    /// Largest message (and frame) accepted, in bytes.
    pub max_message_bytes: usize,
    /// Most requests in one batch.
    pub max_batch: usize,
    /// A session with no message for this long is closed.
    pub idle_timeout: Duration,
}

/// What every connection shares.
pub(crate) struct Shared<S: Host> {
    pub exec: Arc<Executor<S>>,
    pub opts: Options,
    pub backoff: auth::Backoff,
    pub waiting: Waiting,
    pub tickets: tickets::Tickets,
    /// Keys for mounted routes that go in the URL (`/mcp?key=...`), for clients that
    /// cannot send a header (MCP Inspector 0.15): minted like tickets, loopback only.
    pub url_keys: tickets::Tickets,
}

/// Connections that have not authenticated yet, oldest first. When there are
/// [`MAX_WAITING`], a new one closes the oldest, so sockets that connect and sit idle
/// cannot crowd out a client that authenticates at once.
#[derive(Default)]
pub(crate) struct Waiting {
    next: AtomicU64,
    queue: Mutex<VecDeque<(u64, Arc<Notify>)>>,
}

impl Waiting {
    /// A fresh id to join with.
    pub fn ticket(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Join the queue as `id`: what is notified on eviction.
    pub fn join(&self, id: u64) -> Arc<Notify> {
        let mut list = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        while list.len() >= MAX_WAITING {
            if let Some((_, oldest)) = list.pop_front() {
                // Stored as a permit if the connection is not listening at this moment.
                oldest.notify_one();
            }
        }
        let note = Arc::new(Notify::new());
        list.push_back((id, note.clone()));
        note
    }

    /// Leave the queue (authenticated or gone).
    pub fn leave(&self, id: u64) {
        let mut list = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        list.retain(|(i, _)| *i != id);
    }
}

/// A bound WebSocket server.
pub struct WsServer<S: Host> {
    listener: listener::Listener,
    shared: Arc<Shared<S>>,
    /// HTTP routes served beside the WebSocket behind the same checks plus a bearer token
    /// (MCP's `/mcp`).
    mounted: Option<Router>,
}

impl<S: Host> WsServer<S> {
    /// Bind `opts.host:opts.port`.
    pub async fn bind(exec: Arc<Executor<S>>, opts: Options) -> Result<WsServer<S>, WsError> {
        let addr = format!("{}:{}", opts.host, opts.port);
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .map_err(|e| WsError::Bind {
                addr: addr.clone(),
                reason: e.to_string(),
            })?;
        Ok(WsServer {
            listener: listener::Listener {
                inner: listener,
                deadline: AUTH_DEADLINE,
            },
            shared: Arc::new(Shared {
                exec,
                opts,
                backoff: auth::Backoff::default(),
                waiting: Waiting::default(),
                tickets: tickets::Tickets::default(),
                url_keys: tickets::Tickets::default(),
            }),
            mounted: None,
        })
    }

    /// Serve `routes` beside the WebSocket. Each request must pass the `Host` and `Origin`
    /// checks and carry `Authorization: Bearer <token>` (the WebSocket's token, compared in
    /// constant time, with the same back-off after failures); anything else is 401 (or
    /// 403) before it reaches the routes.
    pub fn mount(mut self, routes: Router) -> Self {
        self.mounted = Some(routes);
        self
    }

    /// A key for the mounted routes that goes in their URL (`/mcp?key=...`), for clients
    /// that cannot send `Authorization` (MCP Inspector 0.15). It is not the token (which
    /// never goes in a URL, security.md A5): random, in memory only, valid for
    /// [`tickets::TICKET_TTL`], and accepted only from a loopback peer.
    pub fn url_key(&self) -> Result<String, WsError> {
        self.shared.url_keys.mint()
    }

    /// A web UI sign-in ticket (see [`tickets`]), for the URL `ultra serve` prints.
    pub fn ui_ticket(&self) -> Result<String, WsError> {
        self.shared.tickets.mint()
    }

    /// The bound address (with the port chosen when 0 was asked for).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.listener.inner.local_addr().ok()
    }

    /// Serve until `stop` completes.
    pub async fn run_until(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), WsError> {
        let mut app = Router::new()
            .route("/", get(upgrade::<S>))
            .merge(web::routes::<S>())
            .with_state(self.shared.clone());
        if let Some(routes) = self.mounted {
            app = app.merge(routes.layer(axum::middleware::from_fn_with_state(
                self.shared,
                bearer::<S>,
            )));
        }
        axum::serve(
            self.listener,
            app.into_make_service_with_connect_info::<listener::Peer>(),
        )
        .with_graceful_shutdown(stop)
        .await
        .map_err(|e| WsError::Io(e.to_string()))
    }
}

/// `GET /`: the checks that must pass before a connection is upgraded.
async fn upgrade<S: Host>(
    State(shared): State<Arc<Shared<S>>>,
    ConnectInfo(peer): ConnectInfo<listener::Peer>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let text = |h: header::HeaderName| headers.get(h).and_then(|v| v.to_str().ok());
    if !host_ok(&shared, text(header::HOST)) {
        refuse(&shared, "(ws host)", ErrorCode::Unauthorized);
        return (
            StatusCode::FORBIDDEN,
            "Host not allowed: connect to localhost or 127.0.0.1",
        )
            .into_response();
    }
    // The web UI's own page (same origin as this server) may connect, as may the
    // configured origins and non-browser clients (no Origin).
    let same_origin = match (text(header::ORIGIN), text(header::HOST)) {
        (Some(o), Some(h)) => o.eq_ignore_ascii_case(&format!("http://{h}")),
        _ => false,
    };
    if !same_origin && !guard::origin_allowed(text(header::ORIGIN), &shared.opts.allowed_origins) {
        refuse(&shared, "(ws origin)", ErrorCode::Unauthorized);
        return (
            StatusCode::FORBIDDEN,
            "Origin not allowed: add it to allowedOrigins in ultra.config.json",
        )
            .into_response();
    }
    let Ok(ws) = ws else {
        return (
            StatusCode::UPGRADE_REQUIRED,
            "this is Ultra's WebSocket endpoint (seed 003): connect with a WebSocket client",
        )
            .into_response();
    };
    peer.upgraded();
    let limit = shared.opts.max_message_bytes;
    ws.max_message_size(limit)
        .max_frame_size(limit)
        // tungstenite zeroes this much before every socket read (128 KiB by default, a
        // tenth of the server's time under load); requests are small.
        .read_buffer_size(16 * 1024)
        .on_upgrade(move |socket| conn::serve(socket, shared, peer.addr))
}

/// In front of mounted routes: `Host` and `Origin` as for the WebSocket, then the bearer
/// token. A request that passes may keep its connection open (server-sent events).
async fn bearer<S: Host>(
    State(shared): State<Arc<Shared<S>>>,
    ConnectInfo(peer): ConnectInfo<listener::Peer>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let headers = request.headers();
    let text = |h: header::HeaderName| headers.get(h).and_then(|v| v.to_str().ok());
    if !host_ok(&shared, text(header::HOST)) {
        refuse(&shared, "(http host)", ErrorCode::Unauthorized);
        return (StatusCode::FORBIDDEN, "Host not allowed").into_response();
    }
    if !guard::origin_allowed(text(header::ORIGIN), &shared.opts.allowed_origins) {
        refuse(&shared, "(http origin)", ErrorCode::Unauthorized);
        return (StatusCode::FORBIDDEN, "Origin not allowed").into_response();
    }
    let given = text(header::AUTHORIZATION)
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim);
    let ip = peer.addr.ip();
    // A URL key from `url_key`, from this machine only: a key in a URL may end up in
    // history and logs, so it does not reach beyond loopback.
    let url_key = request
        .uri()
        .query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|pair| pair.strip_prefix("key="));
    if given.is_none()
        && let Some(key) = url_key
        && ip.is_loopback()
        && shared.url_keys.valid(key)
    {
        shared.backoff.succeed(ip);
        peer.upgraded();
        return next.run(request).await;
    }
    let ok = match given {
        Some(t) => match shared.backoff.admit(ip) {
            Ok(wait) => {
                tokio::time::sleep(wait).await;
                shared.opts.token.matches(t)
            }
            Err(_) => false,
        },
        None => false,
    };
    if !ok {
        if given.is_some() {
            shared.backoff.fail(ip);
        }
        refuse(&shared, "(http auth)", ErrorCode::Unauthorized);
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer realm=\"ultra\"")],
            "send Authorization: Bearer <token>, the token `ultra serve` uses for its WebSocket (a client that cannot send headers may use the /mcp?key=... URL `ultra serve` prints, from this machine)",
        )
            .into_response();
    }
    shared.backoff.succeed(ip);
    peer.upgraded();
    next.run(request).await
}

/// The `Host` check of [`upgrade`]: loopback names, or the configured host.
pub(crate) fn host_ok<S: Host>(shared: &Shared<S>, host: Option<&str>) -> bool {
    let listen_host = shared.opts.host.as_str();
    let extra: &[&str] = if guard::host_allowed(Some(listen_host), &[]) || listen_host.is_empty() {
        &[]
    } else {
        std::slice::from_ref(&listen_host)
    };
    guard::host_allowed(host, extra)
}

/// Audit a request refused before it reached the executor.
pub(crate) fn refuse<S: Host>(shared: &Shared<S>, what: &str, code: ErrorCode) {
    shared.exec.audit().record(
        &Source::new(SourceKind::Ai),
        what,
        &serde_json::Value::Null,
        code.as_str(),
        0,
    );
}
