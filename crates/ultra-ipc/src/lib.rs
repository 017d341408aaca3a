//! Ultra's Unix-socket transport.
//!
//! The server ([`Server`], [`serve`]) listens on a Unix socket inside a private runtime
//! directory, checks each peer's uid, reads newline-delimited JSON and answers two request
//! shapes on the same socket: JSON-RPC 2.0 (single calls and batches) and the seed-000
//! envelope (`{id, type: execute|batch|query|subscribe}`). Every command goes through
//! [`ultra_core::Executor::execute`]; the transport only frames, dispatches, checks who the
//! peer is and pushes events to subscribers. The JSON-RPC session (identity, subscriptions
//! under `subscribe` or `events.subscribe`, batch limit, refusal audit) is
//! `ultra_rpc::Session`, shared with the WebSocket.
//!
//! The [`Client`] is a small blocking client for the `ultra -c` command line.
//!
//! The crate is generic over [`ultra_core::Host`], so it never depends on the workspace
//! services: whoever wires Ultra together hands it an `Arc<Executor<S>>`.

mod client;
mod conn;
mod runtime;
mod server;

use std::path::PathBuf;

pub use client::{Caller, Client, ClientError};
pub use runtime::{default_socket_path, ensure_runtime_dir, resolve_socket_path, workspace_hash};
pub use server::{Server, ShutdownHandle, serve};

/// Why the server could not start or keep running.
///
/// Every variant names the path involved, because the person reading it has to go and fix
/// that path (or stop the other server).
#[derive(Debug, thiserror::Error)]
pub enum IpcError {
    /// The socket's directory is a symbolic link. Following it would let whoever planted
    /// it choose where our socket lives.
    #[error(
        "runtime directory {path} is a symbolic link; refusing to use it (remove it and retry)"
    )]
    RuntimeDirSymlink {
        /// The directory.
        path: PathBuf,
    },
    /// The socket's directory exists but is not a directory.
    #[error("runtime directory {path} exists and is not a directory")]
    RuntimeDirNotDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The socket's directory belongs to another user, who could replace our socket.
    #[error(
        "runtime directory {path} is owned by uid {owner}, not by this user (uid {uid}); refusing to use it"
    )]
    RuntimeDirOwner {
        /// The directory.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// Our uid.
        uid: u32,
    },
    /// The socket's directory is reachable by group or others.
    #[error(
        "runtime directory {path} has mode {mode:03o}; it must not be accessible to group or others (chmod 700 it)"
    )]
    RuntimeDirMode {
        /// The directory.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The socket path has no parent directory to check.
    #[error("socket path {path} has no parent directory")]
    NoParentDirectory {
        /// The socket path.
        path: PathBuf,
    },
    /// A live server already answers on this path.
    #[error("another server is already running on {path}")]
    AlreadyRunning {
        /// The socket path.
        path: PathBuf,
    },
    /// Something that is not a socket sits at the socket path; we never delete it.
    #[error("{path} exists and is not a socket; refusing to replace it")]
    NotASocket {
        /// The socket path.
        path: PathBuf,
    },
    /// A socket owned by another user sits at the socket path; we never delete it.
    #[error("{path} is a socket owned by uid {owner}, not by this user; refusing to replace it")]
    ForeignSocket {
        /// The socket path.
        path: PathBuf,
        /// Its owner.
        owner: u32,
    },
    /// An operating-system call failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What we were doing.
        what: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl IpcError {
    pub(crate) fn io(
        what: &'static str,
        path: &std::path::Path,
        source: std::io::Error,
    ) -> IpcError {
        IpcError::Io {
            what,
            path: path.to_path_buf(),
            source,
        }
    }
}
