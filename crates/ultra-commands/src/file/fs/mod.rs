//! Seed 003 `fs.*` methods: file-system operations on the confined workspace, entry points
//! to the same workspace operations as the `ultra.*` file commands.
//!
//! Every path is resolved beneath the root (symlinks included; a link leading out is
//! `PATH_OUTSIDE_WORKSPACE`), and programs and agents may not write `.git` internals,
//! Ultra's own config or restricted paths. Writes are crash-safe (temp file, fsync, rename)
//! and go through an open buffer when there is one, so they are undoable and the editor
//! never holds stale text. Mutations take `expectedHash` (and `expectedVersion` for open
//! buffers) and refuse with STALE_VERSION instead of overwriting a change the caller has not
//! seen. Results that are `{success: boolean}` in the seed return `success: true` plus what
//! was done; failures are errors.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, FileOperation, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::event::names;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_workspace::root::{Kind, Meta};
use ultra_workspace::workspace::{EditOp, FileEdits};
use ultra_workspace::{RelPath, WsError, text};

use crate::file::Deleted;
use crate::file::editor::Done;
use ultra_services::Services;
mod dirs;
mod read;
mod stat;
mod write;

pub use dirs::*;
pub use read::*;
pub use stat::*;
pub use write::*;

use ultra_services::util::{base64_decode, base64_encode, emit_notices, is_human};

/// Register the seed 003 file-system methods.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(ReadFile)?;
    r.register(WriteFile)?;
    r.register(AppendFile)?;
    r.register(Copy)?;
    r.register(CreateDirectory)?;
    r.register(DeleteDirectory)?;
    r.register(ListDirectory)?;
    r.register(Exists)?;
    r.register(Stat)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];
const TREE: &[(&str, &str)] = &[
    ("src/app.ts", "const x = 1;\nconsole.log(x);\n"),
    ("src/lib/util.ts", "export {};\n"),
    ("README.md", "# demo\n"),
];

/// The most entries one `fs.listDirectory` returns.
pub const MAX_LIST_ENTRIES: usize = 10_000;

/// How file content travels on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// UTF-8 text (`utf-8` is accepted too).
    #[default]
    #[serde(alias = "utf-8")]
    Utf8,
    /// Standard base64 of the raw bytes, for binary files.
    Base64,
}

/// Text for validators: content validators read text, so binary bytes are shown lossily.
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Milliseconds since the epoch, as seed 003's `mtime`.
fn mtime_ms(m: &Meta) -> u64 {
    (m.mtime_ns / 1_000_000) as u64
}

/// Announce a change to files on disk.
fn emit_saved(cx: &Cx<'_, Services>, data: serde_json::Value) {
    cx.events.emit(names::FILE_SAVED, data, Some(cx.source));
}
