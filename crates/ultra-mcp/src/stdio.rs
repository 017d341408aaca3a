//! stdin and stdout for the stdio transport. Tokio's own `stdin()`/`stdout()` hand every
//! read and write to its blocking thread pool, two thread wake-ups per call that showed
//! as most of MCP's cost over the socket (futex and wake-up time in a profile). When the
//! client gave us a pipe or a Unix socket (Python's SDK uses pipes, libuv-based clients
//! socketpairs), they are read and written through epoll instead; anything else (a
//! terminal, a file) keeps tokio's portable streams.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite};
use ultra_core::Unrecorded;

/// What a descriptor is, for choosing how to drive it.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Fifo,
    UnixSocket,
    Other,
}

fn kind(fd: &OwnedFd) -> (Kind, Option<(u64, u64)>) {
    // SAFETY: fstat writes into the zeroed struct we own; the fd is valid while borrowed.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return (Kind::Other, None);
    }
    let id = Some((st.st_dev, st.st_ino));
    match st.st_mode & libc::S_IFMT {
        libc::S_IFIFO => (Kind::Fifo, id),
        libc::S_IFSOCK => {
            let mut domain: libc::c_int = 0;
            let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
            // SAFETY: getsockopt writes at most `len` bytes into `domain`.
            let ok = unsafe {
                libc::getsockopt(
                    fd.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_DOMAIN,
                    (&mut domain as *mut libc::c_int).cast(),
                    &mut len,
                )
            } == 0;
            if ok && domain == libc::AF_UNIX {
                (Kind::UnixSocket, id)
            } else {
                (Kind::Other, id)
            }
        }
        _ => (Kind::Other, id),
    }
}

fn dup(fd: std::os::fd::BorrowedFd<'_>) -> Option<OwnedFd> {
    fd.try_clone_to_owned().ok()
}

fn unix_stream(fd: OwnedFd) -> Option<tokio::net::UnixStream> {
    let s = std::os::unix::net::UnixStream::from(fd);
    s.set_nonblocking(true).ok()?;
    tokio::net::UnixStream::from_std(s).ok()
}

/// The reading half: stdin through epoll when it is a pipe or a Unix socket.
pub(crate) fn reader() -> Box<dyn AsyncRead + Send + Unpin> {
    let Some(fd) = dup(std::io::stdin().as_fd()) else {
        return Box::new(tokio::io::stdin());
    };
    match kind(&fd).0 {
        Kind::Fifo => match tokio::net::unix::pipe::Receiver::from_owned_fd(fd) {
            Ok(r) => Box::new(r),
            Err(_) => Box::new(tokio::io::stdin()),
        },
        Kind::UnixSocket => match unix_stream(fd) {
            Some(s) => Box::new(s),
            None => Box::new(tokio::io::stdin()),
        },
        Kind::Other => Box::new(tokio::io::stdin()),
    }
}

/// The writing half: stdout through epoll when it is a pipe or a Unix socket of its own.
/// Non-blocking mode belongs to the open file, so a stdout shared with stderr (`2>&1`)
/// stays blocking: a log line must never fail with EAGAIN.
pub(crate) fn writer() -> Box<dyn AsyncWrite + Send + Unpin> {
    let Some(fd) = dup(std::io::stdout().as_fd()) else {
        return Box::new(tokio::io::stdout());
    };
    let (k, id) = kind(&fd);
    let shared_with_stderr = dup(std::io::stderr().as_fd()).is_some_and(|e| kind(&e).1 == id);
    if shared_with_stderr {
        return Box::new(tokio::io::stdout());
    }
    match k {
        Kind::Fifo => match tokio::net::unix::pipe::Sender::from_owned_fd(fd) {
            Ok(w) => Box::new(w),
            Err(_) => Box::new(tokio::io::stdout()),
        },
        Kind::UnixSocket => match unix_stream(fd) {
            Some(s) => Box::new(s),
            None => Box::new(tokio::io::stdout()),
        },
        Kind::Other => Box::new(tokio::io::stdout()),
    }
}

/// Records of read-only calls answered but not yet written out (see
/// [`ultra_core::Executor::execute_then`]).
#[derive(Clone, Default)]
pub(crate) struct Pending(Arc<Mutex<Vec<Unrecorded>>>);

impl Pending {
    /// Keep a call's record until stdout next takes a whole message.
    pub(crate) fn push(&self, after: Unrecorded) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(after);
    }

    /// Write every record kept.
    fn record(&self) {
        let taken = std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
        drop(taken);
    }
}

/// stdout, recording the calls answered once a message has been flushed to the client:
/// the client reads its result while the audit line is written. Records left when the
/// server stops are written as the last handle drops.
pub(crate) struct Recording<W> {
    inner: W,
    pending: Pending,
}

impl<W> Recording<W> {
    pub(crate) fn new(inner: W, pending: Pending) -> Recording<W> {
        Recording { inner, pending }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Recording<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let done = Pin::new(&mut self.inner).poll_flush(cx);
        if done.is_ready() {
            self.pending.record();
        }
        done
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let done = Pin::new(&mut self.inner).poll_shutdown(cx);
        if done.is_ready() {
            self.pending.record();
        }
        done
    }
}
