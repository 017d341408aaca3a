//! The direct path for tool calls over stdio. rmcp reads every message into its typed
//! model (serde's buffered `untagged` and `flatten`), hands it to its service loop over a
//! channel, spawns a handler, and sends the answer back over another channel before
//! writing it: for a call that costs the socket 40 µs, that was a quarter more. Once the
//! client has initialized, a plain `tools/call` (a name, arguments, at most a progress
//! token) is read here in one pass, run on a task of its own and answered straight to
//! stdout. Every other line (initialize, lists, responses to our elicitations,
//! notifications, anything unusual) goes on to rmcp unchanged, and rmcp's messages are
//! written to stdout whole, between ours.
//!
//! Both paths answer through [`McpServer::call`](crate::McpServer), so a call means the
//! same whichever path it took.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use rmcp::model::{CallToolResult, ProgressToken};
use rmcp::{Peer, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio::task::JoinSet;
use ultra_core::Host;

use crate::{Answer, Ask, Call, McpServer};

/// The longest message read, as rmcp's own stdio transport has it: a longer line is
/// dropped, so a client cannot make the server hold an unbounded one.
pub(crate) const MAX_LINE: usize = 16 << 20;

/// stdout, shared by whole messages: each writer holds it from a message's first byte to
/// its flush, so nothing interleaves.
pub(crate) type Out = Arc<Mutex<Box<dyn AsyncWrite + Send + Unpin>>>;

/// Write one message (ending in a newline) to `out` and flush it.
async fn send(out: &Out, message: &[u8]) -> std::io::Result<()> {
    let mut w = out.lock().await;
    w.write_all(message).await?;
    w.flush().await
}

/// What the direct path needs from the session rmcp set up: known once `initialize` has
/// been answered.
#[derive(Clone)]
pub(crate) struct Session {
    peer: Peer<RoleServer>,
    /// The client's name from `initialize`, which attributes its calls.
    agent: Option<String>,
    /// Whether the client said at `initialize` that it can ask its user.
    elicits: bool,
}

impl Session {
    /// The session of an initialized client; `None` for one that started without
    /// `initialize` (MCP 2026-07-28, which carries `_meta` in every request and so never
    /// takes the direct path) or negotiated a revision without it.
    pub(crate) fn of(peer: &Peer<RoleServer>) -> Option<Session> {
        let info = peer.peer_info()?;
        if !info.protocol_version.has_initialize() {
            return None;
        }
        Some(Session {
            peer: peer.clone(),
            agent: Some(info.client_info.name.clone()),
            elicits: info.capabilities.elicitation.is_some(),
        })
    }
}

/// A JSON-RPC request, as far as the direct path reads one. Anything it does not know
/// fails the read, and the line goes to rmcp as it came.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Params<'a>,
}

/// `tools/call`'s parameters: the tool, its arguments and at most a progress token.
/// `_meta` with anything else (a client's identity for MCP 2026-07-28, say) and the
/// revision's `requestState`/`inputResponses` are rmcp's to read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    #[serde(rename = "progressToken")]
    progress_token: ProgressToken,
}

/// A request id as rmcp accepts one: a string or a 64-bit integer.
fn plain_id(id: &RawValue) -> bool {
    let t = id.get();
    t.starts_with('"') || t.parse::<i64>().is_ok()
}

/// A line the direct path answers: its id as the client wrote it, and the call.
struct Direct<'a> {
    id: &'a RawValue,
    call: Call,
}

/// Read `line` as a plain `tools/call` of one of `server`'s tools, or `None`.
fn read<'a, S: Host>(
    line: &'a [u8],
    server: &McpServer<S>,
    session: &Session,
) -> Option<Direct<'a>> {
    let r: Request<'a> = serde_json::from_slice(line).ok()?;
    if r.jsonrpc != "2.0" || r.method != "tools/call" || !plain_id(r.id) {
        return None;
    }
    // An unknown tool is rmcp's protocol error to give.
    let id = server.ids.get(r.params.name.as_ref()).copied()?;
    Some(Direct {
        id: r.id,
        call: Call {
            id,
            args: Value::Object(r.params.arguments.unwrap_or_default()),
            agent: session.agent.clone(),
            progress: r.params.meta.map(|m| m.progress_token),
        },
    })
}

/// The reply to a call, as rmcp writes it for a client that initialized.
#[derive(Serialize)]
struct Reply<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: &'a CallToolResult,
}

/// Answer `call` and write the reply.
async fn answer<S: Host>(
    server: McpServer<S>,
    session: Session,
    id: Box<RawValue>,
    call: Call,
    out: Out,
) {
    let ask = if session.elicits {
        Ask::Elicit
    } else {
        Ask::Nobody
    };
    let mut result = match server.call(call, ask, &session.peer).await {
        Answer::Done(result) => result,
        // Only a retry under MCP 2026-07-28 is answered with a question, and those are
        // rmcp's.
        Answer::InputRequired(_) => return,
    };
    // A revision before 2026-07-28 has no `resultType` (rmcp strips it likewise).
    result.result_type = None;
    let reply = Reply {
        jsonrpc: "2.0",
        id: &id,
        result: &result,
    };
    let Ok(mut bytes) = serde_json::to_vec(&reply) else {
        return;
    };
    bytes.push(b'\n');
    let _ = send(&out, &bytes).await;
}

/// Read the client's messages from `input` until it closes: plain tool calls are answered
/// here once `session` is known, everything else is written on to rmcp (`to_rmcp`).
/// Returns once every call taken here has been answered.
pub(crate) async fn route<S: Host>(
    input: impl AsyncRead + Unpin,
    mut to_rmcp: impl AsyncWrite + Unpin,
    server: McpServer<S>,
    session: Arc<OnceLock<Option<Session>>>,
    out: Out,
) {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    let mut calls = JoinSet::new();
    loop {
        line.clear();
        match read_line(&mut input, &mut line).await {
            Line::Whole => {}
            Line::TooLong => {
                eprintln!(
                    "ultra mcp: a message over {} MiB was dropped",
                    MAX_LINE >> 20
                );
                continue;
            }
            Line::End => break,
        }
        while calls.try_join_next().is_some() {}
        if let Some(Some(s)) = session.get()
            && let Some(direct) = read(&line, &server, s)
        {
            let id = direct.id.to_owned();
            calls.spawn(answer(
                server.clone(),
                s.clone(),
                id,
                direct.call,
                out.clone(),
            ));
            continue;
        }
        if to_rmcp.write_all(&line).await.is_err() || to_rmcp.flush().await.is_err() {
            break;
        }
    }
    // The client is gone: rmcp sees its input end, and the calls taken here finish.
    drop(to_rmcp);
    while calls.join_next().await.is_some() {}
}

/// How a line read ended.
enum Line {
    /// A whole line (with its newline, unless the input ended without one).
    Whole,
    /// Longer than [`MAX_LINE`]: dropped up to its newline.
    TooLong,
    /// The input closed (or failed) with nothing more to read.
    End,
}

/// Read one line into `buf` without ever holding more than [`MAX_LINE`] of it.
async fn read_line(input: &mut (impl tokio::io::AsyncBufRead + Unpin), buf: &mut Vec<u8>) -> Line {
    let mut dropping = false;
    loop {
        let chunk = match input.fill_buf().await {
            Ok(c) => c,
            Err(_) => return Line::End,
        };
        if chunk.is_empty() {
            return match (dropping, buf.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Whole,
            };
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !dropping {
            if buf.len() + take > MAX_LINE {
                dropping = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        input.consume(take);
        if done {
            return if dropping { Line::TooLong } else { Line::Whole };
        }
    }
}

/// Write rmcp's messages (`from_rmcp`) to `out`, each whole, until rmcp stops.
pub(crate) async fn pump(from_rmcp: impl AsyncRead + Unpin, out: Out) {
    let mut from_rmcp = BufReader::with_capacity(1 << 16, from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        match from_rmcp.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if send(&out, &line).await.is_err() {
            return;
        }
    }
}
