//! The workspace service: everything Ultra does to files and buffers.
//!
//! - [`root`]: the confined root. Every path is resolved beneath it, symlinks included,
//!   with operations done relative to a directory handle (cap-std, `openat2` beneath).
//! - [`buffer`]: a rope per open file with a version, dirty state and selections.
//! - [`history`]: undo/redo grouped by transaction and tagged by source.
//! - [`workspace`]: the buffers, history and root together; edits are atomic batches.
//!
//! Invariant: no function here takes a path string and hands it to the OS directly; paths
//! become [`root::RelPath`] first.

pub mod buffer;
pub mod error;
pub mod history;
pub mod root;
pub mod text;
pub mod workspace;

pub use error::WsError;
pub use root::{RelPath, Root};
pub use workspace::Workspace;
