//! What older and stricter HTTP clients expect of `/mcp`, around rmcp's streamable HTTP
//! service:
//! - `DELETE /mcp` (ending a session) answers 204, not rmcp's 202: clients look for 200 or
//!   204, and 202 reads as "still working".
//! - A JSON-RPC batch (an array) is answered as protocol revision 2025-03-26 defines it: each
//!   element goes to the service on its own, and the responses come back as one JSON array
//!   (notifications have none; an empty array is an invalid request). rmcp itself refuses an
//!   array with 415.

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tower::ServiceExt;

/// Largest batch body read, as rmcp's own request limit.
const MAX_BODY: usize = 16 << 20;

/// The middleware; `inner` is the `/mcp` router, called once per batch element.
pub async fn compat(State(inner): State<axum::Router>, req: Request, next: Next) -> Response {
    if req.method() == Method::DELETE {
        let mut res = next.run(req).await;
        if res.status() == StatusCode::ACCEPTED {
            *res.status_mut() = StatusCode::NO_CONTENT;
        }
        return res;
    }
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    }
    let Ok(Value::Array(calls)) = serde_json::from_slice::<Value>(&bytes) else {
        return rpc_error(Value::Null, -32700, "the batch is not valid JSON");
    };
    if calls.is_empty() {
        return rpc_error(Value::Null, -32600, "an empty batch is not a request");
    }
    let mut answers = Vec::new();
    let mut session = None;
    for call in calls {
        let id = call.get("id").cloned();
        let mut one = Request::from_parts(parts.clone(), Body::from(call.to_string()));
        one.headers_mut().remove(header::CONTENT_LENGTH);
        let Ok(res) = inner.clone().oneshot(one).await;
        if session.is_none() {
            session = res.headers().get("mcp-session-id").cloned();
        }
        let status = res.status();
        let Ok(body) = axum::body::to_bytes(res.into_body(), MAX_BODY).await else {
            continue;
        };
        let Some(id) = id.filter(|i| !i.is_null()) else {
            continue; // a notification: no answer
        };
        answers.push(answer(&body, &id).unwrap_or_else(|| {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
                "message": format!("no answer for this element (HTTP {status})")}})
        }));
    }
    if answers.is_empty() {
        return StatusCode::ACCEPTED.into_response();
    }
    let mut res = (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        Value::Array(answers).to_string(),
    )
        .into_response();
    if let Some(s) = session {
        res.headers_mut().insert("mcp-session-id", s);
    }
    res
}

/// The JSON-RPC response for `id` in a body that is JSON or a server-sent event stream.
fn answer(body: &Bytes, id: &Value) -> Option<Value> {
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        return Some(v);
    }
    let text = std::str::from_utf8(body).ok()?;
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| {
            m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some())
        })
}

fn rpc_error(id: Value, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (
        StatusCode::BAD_REQUEST,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}
