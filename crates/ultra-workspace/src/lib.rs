//! The workspace service: everything Ultra does to files and buffers.
//!
//! - [`root`]: the confined root. Every path is resolved beneath it, symlinks included,
//!   with operations done relative to a directory handle (cap-std, `openat2` beneath).
//! - [`anchor`]: anchor edits: finding `old` tolerantly, fitting `new` to the file.
//! - [`buffer`]: a rope per open file with a version, dirty state and selections.
//! - [`journal`]: the intent journal that makes a saved batch all or nothing across crashes.
//! - [`history`]: undo/redo grouped by transaction and tagged by source.
//! - [`workspace`]: the buffers, history and root together; edits are atomic batches.
//!
//! Invariant: no function here takes a path string and hands it to the OS directly; paths
//! become [`root::RelPath`] first.

pub mod anchor;
pub mod buffer;
pub mod error;
pub mod history;
pub mod journal;
pub mod root;
pub mod text;
pub mod workspace;

pub use error::WsError;
pub use root::{RelPath, Root};
pub use workspace::Workspace;
