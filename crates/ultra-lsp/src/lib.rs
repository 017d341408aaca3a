//! Language servers as a service (issue 22's first layer): [`Client`] starts a server over
//! stdio in the workspace root, initializes it offering UTF-8, UTF-32 and UTF-16 positions
//! (`encoding.rs` converts the one it picks, in one place), answers the requests a server
//! makes of its client, keeps documents in sync and keeps the diagnostics it publishes for
//! whoever waits for them. [`Servers`] (`servers.rs`) holds one workspace's servers: which
//! serves a file, started on first need (configured, or the first default on `PATH`), started
//! again with backoff when one dies, documents synced. `framing.rs` is the base protocol; `uri.rs` maps paths to
//! `file://` URIs.

mod client;
pub mod encoding;
pub mod framing;
mod servers;
mod tsserver;
pub mod uri;

pub use client::{Client, LspError, OnPublish, Published, ServerSpec};
pub use encoding::PositionEncoding;
pub use servers::{Document, PublishHook, ServerConfig, Servers, State, Status, language_of};
