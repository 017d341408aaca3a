//! The WebSocket floor for `bench/ws_rtt.rs`: a tokio-tungstenite server that sends every
//! text message back as it came, on one connection task (what a WebSocket round trip costs
//! with no work in it). Prints `ready <port>` once it listens on 127.0.0.1.
//!
//! Build: `cargo build --release -p ultra-ws --example ws_echo`.

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    println!("ready {}", listener.local_addr()?.port());
    loop {
        let (tcp, _) = listener.accept().await?;
        let _ = tcp.set_nodelay(true);
        tokio::spawn(async move {
            let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                return;
            };
            while let Some(Ok(msg)) = ws.next().await {
                let echo = match msg {
                    Message::Text(_) | Message::Binary(_) => msg,
                    Message::Close(_) => break,
                    _ => continue,
                };
                if ws.send(echo).await.is_err() {
                    break;
                }
            }
        });
    }
}
