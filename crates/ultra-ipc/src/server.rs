//! Binding the socket and accepting connections.
//!
//! [`Server::bind`] prepares the runtime directory (ours, 0700), clears a stale socket of
//! ours, binds and makes the socket 0600. [`Server::run`] accepts connections,
//! drops peers whose uid is not ours, caps the number of connections, and hands each one
//! to its own task (see `conn.rs`). On shutdown the socket file is removed, but only if it
//! is still the one we created.

use std::future::Future;
use std::io::ErrorKind;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use ultra_core::config::IpcConfig;
use ultra_core::{Executor, Host};
use ultra_protocol::jsonrpc::{Id, Response};
use ultra_protocol::{CommandError, ErrorCode};

use crate::IpcError;
use crate::conn::{self, Limits};
use crate::runtime::{current_uid, ensure_runtime_dir};

/// How long a stale-socket probe may take before we assume a live (but busy) server.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// How long open connections get to finish their current request after shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// Pause after an accept error such as EMFILE, so a full fd table does not spin the loop.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Stops a running [`Server`]. Cloneable; any clone stops it.
#[derive(Debug, Clone)]
pub struct ShutdownHandle(CancellationToken);

impl ShutdownHandle {
    /// Ask the server to stop: no new connections, open ones finish their current request,
    /// the socket file is removed.
    pub fn shutdown(&self) {
        self.0.cancel();
    }

    /// Whether shutdown was requested.
    pub fn is_shutdown(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// Removes the socket file when dropped, if the file at the path is still the socket we
/// bound (same device and inode): a second server that replaced it keeps its socket.
#[derive(Debug)]
struct SocketFile {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        if let Ok(meta) = std::fs::symlink_metadata(&self.path)
            && meta.dev() == self.dev
            && meta.ino() == self.ino
        {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A bound, not yet running, socket server.
pub struct Server<S: Host> {
    exec: Arc<Executor<S>>,
    listener: UnixListener,
    limits: Limits,
    max_connections: usize,
    socket: SocketFile,
    shutdown: CancellationToken,
}

impl<S: Host> Server<S> {
    /// Prepare the runtime directory and bind `socket_path`.
    ///
    /// Fails if the directory is unsafe (see [`ensure_runtime_dir`]), if another server
    /// answers on the path, or if something other than a stale socket of ours is there.
    /// Must be called inside a Tokio runtime.
    pub async fn bind(
        exec: Arc<Executor<S>>,
        socket_path: &Path,
        cfg: &IpcConfig,
    ) -> Result<Server<S>, IpcError> {
        let dir = match socket_path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => {
                return Err(IpcError::NoParentDirectory {
                    path: socket_path.to_path_buf(),
                });
            }
        };
        ensure_runtime_dir(dir)?;
        clear_stale_socket(socket_path).await?;
        let std_listener = bind_private(socket_path)?;
        let meta = std::fs::symlink_metadata(socket_path)
            .map_err(|e| IpcError::io("cannot inspect socket", socket_path, e))?;
        // From here on, dropping `socket` removes the file, whatever fails next.
        let socket = SocketFile {
            path: socket_path.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
        };
        std_listener
            .set_nonblocking(true)
            .map_err(|e| IpcError::io("cannot configure socket", socket_path, e))?;
        let listener = UnixListener::from_std(std_listener)
            .map_err(|e| IpcError::io("cannot register socket", socket_path, e))?;
        Ok(Server {
            exec,
            listener,
            limits: Limits {
                max_line_bytes: cfg.max_line_bytes.max(1),
                max_batch: cfg.max_batch,
            },
            // Zero would refuse every client, which no one means.
            max_connections: cfg.max_connections.max(1),
            socket,
            shutdown: CancellationToken::new(),
        })
    }

    /// The path the server listens on.
    pub fn socket_path(&self) -> &Path {
        &self.socket.path
    }

    /// A handle that stops [`Server::run`].
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shutdown.clone())
    }

    /// Accept connections until a [`ShutdownHandle`] fires, then remove the socket.
    pub async fn run(self) -> Result<(), IpcError> {
        self.run_until(std::future::pending()).await
    }

    /// Accept connections until `stop` completes or a [`ShutdownHandle`] fires, then remove
    /// the socket. Open connections finish their current request (up to a few seconds).
    pub async fn run_until(self, stop: impl Future<Output = ()>) -> Result<(), IpcError> {
        let Server {
            exec,
            listener,
            limits,
            max_connections,
            socket,
            shutdown,
        } = self;
        let uid = current_uid();
        let slots = Arc::new(Semaphore::new(max_connections));
        let mut tasks = JoinSet::new();
        tokio::pin!(stop);
        loop {
            tokio::select! {
                biased;
                _ = shutdown.cancelled() => break,
                _ = &mut stop => break,
                // Reap finished connections so the set does not grow without bound.
                Some(joined) = tasks.join_next(), if !tasks.is_empty() => {
                    // A panic is a bug in Ultra; it ended one connection, not the server.
                    if let Err(e) = joined && e.is_panic() {
                        eprintln!("ultra: ipc: a connection task panicked: {e}");
                    }
                }
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        if !peer_is_us(&stream, uid) {
                            continue;
                        }
                        match slots.clone().try_acquire_owned() {
                            Ok(permit) => {
                                tasks.spawn(conn::serve_connection(exec.clone(), stream, limits, shutdown.child_token(), permit));
                            }
                            Err(_) => {
                                tasks.spawn(reject_busy(stream, max_connections));
                            }
                        }
                    }
                    Err(e) => {
                        eprintln!("ultra: ipc: accept failed on {}: {e}", socket.path.display());
                        tokio::time::sleep(ACCEPT_BACKOFF).await;
                    }
                },
            }
        }
        shutdown.cancel();
        // Stop accepting and remove the path first, so new clients fail fast (and fall back
        // to running in process) instead of queueing on a server that is going away.
        drop(listener);
        drop(socket);
        let drained = tokio::time::timeout(SHUTDOWN_GRACE, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tasks.shutdown().await;
        }
        Ok(())
    }
}

/// Bind and run until SIGINT or SIGTERM, then shut down cleanly (removing the socket).
pub async fn serve<S: Host>(
    exec: Arc<Executor<S>>,
    socket_path: &Path,
    cfg: &IpcConfig,
) -> Result<(), IpcError> {
    use tokio::signal::unix::{SignalKind, signal};
    let server = Server::bind(exec, socket_path, cfg).await?;
    let mut term = signal(SignalKind::terminate())
        .map_err(|e| IpcError::io("cannot install SIGTERM handler for", socket_path, e))?;
    let mut int = signal(SignalKind::interrupt())
        .map_err(|e| IpcError::io("cannot install SIGINT handler for", socket_path, e))?;
    server
        .run_until(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
        .await
}

/// Deal with whatever sits at the socket path before binding.
async fn clear_stale_socket(path: &Path) -> Result<(), IpcError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(IpcError::io("cannot inspect socket path", path, e)),
    };
    if !meta.file_type().is_socket() {
        return Err(IpcError::NotASocket {
            path: path.to_path_buf(),
        });
    }
    if meta.uid() != current_uid() {
        return Err(IpcError::ForeignSocket {
            path: path.to_path_buf(),
            owner: meta.uid(),
        });
    }
    match tokio::time::timeout(PROBE_TIMEOUT, UnixStream::connect(path)).await {
        // Someone answers: never steal a live server's path.
        Ok(Ok(_)) | Err(_) => Err(IpcError::AlreadyRunning {
            path: path.to_path_buf(),
        }),
        Ok(Err(e)) if matches!(e.kind(), ErrorKind::ConnectionRefused | ErrorKind::NotFound) => {
            match std::fs::remove_file(path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
                Err(e) => Err(IpcError::io("cannot remove stale socket", path, e)),
            }
        }
        Ok(Err(e)) => Err(IpcError::io("cannot probe existing socket", path, e)),
    }
}

/// Bind, then make the socket 0600. There is no window in which another user could
/// connect: the socket lives in a directory [`ensure_runtime_dir`] has checked is ours and
/// 0700, so nobody else can reach it to begin with. (A process-wide `umask` around the bind
/// would also give other threads' new files and directories that mask meanwhile: a
/// directory created 0600 cannot even be entered.)
fn bind_private(path: &Path) -> Result<std::os::unix::net::UnixListener, IpcError> {
    use std::os::unix::fs::PermissionsExt;
    let listener = std::os::unix::net::UnixListener::bind(path)
        .map_err(|e| IpcError::io("cannot bind socket", path, e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| IpcError::io("cannot restrict socket", path, e))?;
    Ok(listener)
}

/// SO_PEERCRED check: only our own uid may talk to us. Anyone else is dropped without a
/// word, so they learn nothing about the server.
fn peer_is_us(stream: &UnixStream, uid: u32) -> bool {
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == uid => true,
        Ok(cred) => {
            eprintln!(
                "ultra: ipc: refused a connection from uid {} (pid {:?}); only uid {uid} may connect",
                cred.uid(),
                cred.pid()
            );
            false
        }
        Err(e) => {
            eprintln!("ultra: ipc: refused a connection whose credentials could not be read: {e}");
            false
        }
    }
}

/// Tell a client over the connection cap why it is being dropped, then drop it.
async fn reject_busy(mut stream: UnixStream, max: usize) {
    let err = CommandError::new(
        ErrorCode::RateLimited,
        format!("too many connections to this server (limit {max})"),
    )
    .with_suggestion("close an idle connection, or retry in a moment");
    let mut line = serde_json::to_vec(&Response::error(Id::Null, err)).unwrap_or_default();
    line.push(b'\n');
    // A client that does not read must not hold this task (and its fd) for long.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(&line).await;
        let _ = stream.shutdown().await;
    })
    .await;
}
