//! A WebSocket client for the black-box tests of seed 003's transport: a workspace whose
//! `ultra serve` listens on a free port with a known token, and the calls of the seed's
//! authentication flow over tokio-tungstenite.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error as WsErr, Message};

use super::{Server, Ws};

pub const TOKEN: &str = "test-token-0123456789abcdef0123456789abcdef";

pub type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A workspace whose server listens on a free port with a known token.
pub fn workspace(extra: Value) -> Ws {
    let ws = Ws::new();
    let mut cfg = json!({"port": 0, "token": TOKEN});
    if let (Value::Object(c), Value::Object(e)) = (&mut cfg, extra) {
        c.extend(e);
    }
    ws.config(cfg);
    ws.write("src/app.ts", "export const a = 1;\n");
    ws
}

/// The `ws://` URL the server printed.
pub fn url(server: &Server) -> String {
    // The whole line: stderr may be read while the server is half-way through it.
    let full_line = |err: &str| {
        err.split_inclusive('\n')
            .find(|l| l.contains("websocket: ws://") && l.ends_with('\n'))
            .map(|l| l.split("websocket: ").nth(1).unwrap().trim().to_string())
    };
    super::wait_until("the websocket line on the server's stderr", || {
        full_line(&server.stderr()).is_some()
    });
    full_line(&server.stderr()).unwrap()
}

pub async fn open(url: &str, headers: &[(&str, &str)]) -> Result<Stream, WsErr> {
    let mut req = url.into_client_request().unwrap();
    for (k, v) in headers {
        let name = tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(k.as_bytes())
            .expect("header name");
        req.headers_mut()
            .insert(name, v.parse().expect("header value"));
    }
    tokio_tungstenite::connect_async(req).await.map(|(s, _)| s)
}

pub async fn recv(s: &mut Stream) -> Option<Value> {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), s.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return Some(serde_json::from_str(&t).unwrap()),
            Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) => return None,
            Ok(Some(Ok(_))) => continue,
            Err(_) => panic!("no message within 10 s"),
        }
    }
}

/// Send one text message and return the next text message exactly as the server wrote it
/// (for what a parse to `Value` would blur, such as a numeric id's text).
pub async fn exchange_raw(s: &mut Stream, text: &str) -> String {
    s.send(Message::Text(text.to_string().into()))
        .await
        .unwrap();
    loop {
        match tokio::time::timeout(Duration::from_secs(10), s.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return t.to_string(),
            Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) => {
                panic!("closed before a reply to {text}")
            }
            Ok(Some(Ok(_))) => continue,
            Err(_) => panic!("no reply to {text} within 10 s"),
        }
    }
}

pub async fn send(s: &mut Stream, v: Value) {
    s.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// Connect and read the challenge's nonce.
pub async fn challenged(url: &str) -> (Stream, String) {
    let mut s = open(url, &[])
        .await
        .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
    let challenge = recv(&mut s).await.unwrap();
    assert_eq!(challenge["method"], "auth.challenge", "{challenge}");
    let nonce = challenge["params"]["nonce"].as_str().unwrap().to_string();
    assert!(nonce.len() >= 32, "{nonce}");
    (s, nonce)
}

pub async fn authenticated(url: &str) -> Stream {
    let (mut s, nonce) = challenged(url).await;
    send(
        &mut s,
        json!({"jsonrpc": "2.0", "id": "auth-1", "method": "auth.authenticate",
               "params": {"token": TOKEN, "nonce": nonce}}),
    )
    .await;
    let r = recv(&mut s).await.unwrap();
    assert_eq!(r["result"]["authenticated"], true, "{r}");
    s
}

pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Send a call and return its reply, passing over notifications (kept in `notes`).
pub async fn call(
    s: &mut Stream,
    id: i64,
    method: &str,
    params: Value,
    notes: &mut Vec<Value>,
) -> Value {
    send(
        s,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .await;
    loop {
        let m = recv(s).await.expect("a reply");
        if m.get("id") == Some(&json!(id)) {
            return m;
        }
        notes.push(m);
    }
}
