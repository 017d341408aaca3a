//! The TCP listener under axum. hyper reads a request's headers with no time limit unless
//! given a timer, which `axum::serve` does not give it, so a socket that connects and says
//! nothing, or trickles its headers, would be held for ever. Each accepted socket here must
//! complete its upgrade within a deadline; until then its reads fail once the deadline has
//! passed, and hyper drops it.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::IncomingStream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Sleep;

/// A TCP listener whose sockets must upgrade within `deadline`.
pub(crate) struct Listener {
    pub inner: TcpListener,
    pub deadline: Duration,
}

/// Who connected, and the switch that lifts the deadline once the request is upgraded.
#[derive(Clone, Debug)]
pub(crate) struct Peer {
    pub addr: SocketAddr,
    upgraded: Arc<AtomicBool>,
}

impl Peer {
    /// The request was accepted for an upgrade: the socket may now live as long as the
    /// WebSocket session does.
    pub fn upgraded(&self) {
        self.upgraded.store(true, Ordering::Release);
    }
}

impl Connected<IncomingStream<'_, Listener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, Listener>) -> Self {
        stream.remote_addr().clone()
    }
}

impl axum::serve::Listener for Listener {
    type Io = Deadline;
    type Addr = Peer;

    async fn accept(&mut self) -> (Deadline, Peer) {
        loop {
            match self.inner.accept().await {
                Ok((io, addr)) => {
                    let _ = io.set_nodelay(true);
                    let upgraded = Arc::new(AtomicBool::new(false));
                    let peer = Peer {
                        addr,
                        upgraded: upgraded.clone(),
                    };
                    let sleep = Box::pin(tokio::time::sleep(self.deadline));
                    return (
                        Deadline {
                            io,
                            sleep,
                            upgraded,
                        },
                        peer,
                    );
                }
                Err(e) => match e.kind() {
                    io::ErrorKind::ConnectionRefused
                    | io::ErrorKind::ConnectionAborted
                    | io::ErrorKind::ConnectionReset => {}
                    // Out of file descriptors, most likely: wait for some to close.
                    _ => tokio::time::sleep(Duration::from_millis(200)).await,
                },
            }
        }
    }

    fn local_addr(&self) -> io::Result<Peer> {
        Ok(Peer {
            addr: self.inner.local_addr()?,
            upgraded: Arc::new(AtomicBool::new(true)),
        })
    }
}

/// A socket whose reads fail after its deadline unless it was upgraded first.
pub(crate) struct Deadline {
    io: TcpStream,
    sleep: Pin<Box<Sleep>>,
    upgraded: Arc<AtomicBool>,
}

impl AsyncRead for Deadline {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        // Polling the timer registers the waker, so a silent peer is dropped on time.
        if !self.upgraded.load(Ordering::Acquire) && self.sleep.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no WebSocket upgrade within the deadline",
            )));
        }
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Deadline {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}
