//! The web UI's page, embedded in the binary (no Node.js at build or run time): `/ui/`
//! and its scripts and styles. The files hold no data: everything comes over the
//! WebSocket after signing in with a ticket (see [`crate::tickets`]). Agents' windows are
//! drawn inside a sandboxed frame (scripts allowed, origin opaque) that talks to the page
//! only by `postMessage`, so markup that slipped past the sanitiser would still reach
//! neither the WebSocket nor the ticket; both documents carry a strict Content Security
//! Policy (no inline script, Trusted Types in the frame).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use ultra_core::Host;

use crate::Shared;

const INDEX: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const APP_CSS: &str = include_str!("../web/app.css");
const FRAME: &str = include_str!("../web/frame.html");
const FRAME_JS: &str = include_str!("../web/frame.js");

/// The page's routes.
pub(crate) fn routes<S: Host>() -> Router<Arc<Shared<S>>> {
    Router::new()
        .route("/ui", get(|| async { Redirect::permanent("/ui/") }))
        .route("/ui/", get(page::<S>))
        .route("/ui/app.js", get(asset::<S>))
        .route("/ui/app.css", get(asset::<S>))
        .route("/ui/frame.html", get(asset::<S>))
        .route("/ui/frame.js", get(asset::<S>))
        // Browsers ask for it; without a route the request meets MCP's bearer check.
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
}

async fn page<S: Host>(State(shared): State<Arc<Shared<S>>>, headers: HeaderMap) -> Response {
    serve(&shared, &headers, "/ui/")
}

async fn asset<S: Host>(
    State(shared): State<Arc<Shared<S>>>,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Response {
    serve(&shared, &headers, uri.path())
}

fn serve<S: Host>(shared: &Shared<S>, headers: &HeaderMap, path: &str) -> Response {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let Some(host) = host.filter(|_| crate::host_ok(shared, host)) else {
        crate::refuse(shared, "(ui host)", ultra_protocol::ErrorCode::Unauthorized);
        return (StatusCode::FORBIDDEN, "Host not allowed").into_response();
    };
    // Agents' http(s) `api.call`s are fetched by the page, only from the allowed hosts
    // (hosts without a usable syntax are left out rather than widening the policy).
    let fetchable: String = shared
        .opts
        .ui_http_allow
        .iter()
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'))
        })
        .map(|h| format!(" http://{h}:* https://{h}:*"))
        .collect();
    let (body, kind, csp) = match path {
        "/ui/" => (
            INDEX,
            "text/html; charset=utf-8",
            format!(
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                 connect-src 'self' ws://{host}{fetchable}; frame-src 'self'; form-action 'none'; \
                 base-uri 'none'; frame-ancestors 'none'"
            ),
        ),
        "/ui/frame.html" => (
            FRAME,
            "text/html; charset=utf-8",
            format!(
                "default-src 'none'; script-src http://{host}/ui/frame.js; \
                 style-src http://{host}/ui/app.css; img-src https: data:; form-action 'none'; \
                 base-uri 'none'; frame-ancestors http://{host}; \
                 require-trusted-types-for 'script'; trusted-types uicp"
            ),
        ),
        "/ui/app.js" => (APP_JS, "text/javascript; charset=utf-8", String::new()),
        "/ui/frame.js" => (FRAME_JS, "text/javascript; charset=utf-8", String::new()),
        "/ui/app.css" => (APP_CSS, "text/css; charset=utf-8", String::new()),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if !csp.is_empty()
        && let Ok(v) = HeaderValue::from_str(&csp)
    {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    if path == "/ui/" {
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    r
}
