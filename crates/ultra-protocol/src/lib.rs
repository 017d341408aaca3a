//! Wire types shared by every surface of Ultra.
//!
//! Everything here is plain data that crosses a process boundary: positions and ranges,
//! the `CommandResult` envelope, stable error codes, the JSON-RPC 2.0 and seed-000 IPC
//! envelopes, pushed events, and the view commands' arguments and results that editors
//! read back ([`view`]). This crate does no I/O and knows nothing about buffers,
//! files or the registry.

pub mod command;
pub mod error;
pub mod event;
pub mod ipc;
pub mod jsonrpc;
pub mod position;
pub mod result;
pub mod source;
pub mod view;

pub use error::{CommandError, ErrorCode};
pub use event::Event;
pub use position::{Location, Position, PositionEncoding, Range};
pub use result::{AgentFeedback, CommandResult, Suggestion, ViolationReport, Warning};
pub use source::{Source, SourceKind};

/// The API level reported by `ultra.listCommands` / `api.info`. Bumped when commands or
/// fields are added; released signatures never change.
pub const API_LEVEL: u32 = 1;
