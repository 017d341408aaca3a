//! Places in a file's text: a file's current text as a rope (the open buffer's, else the
//! disk's), positions from the index's 1-based lines and byte columns in a caller's
//! encoding, and seed 003's `Location`. The queries over the index and the language
//! servers share them.

use ropey::Rope;
use schemars::JsonSchema;
use serde::Serialize;
use ultra_core::Cx;
use ultra_protocol::{Position, PositionEncoding, Range};
use ultra_services::Services;
use ultra_workspace::text::to_pos;

/// A seed 003 location.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub uri: String,
    /// Workspace-relative path (besides the seed's `uri`); absolute for a file outside
    /// the workspace a language server pointed to (a library, a stub).
    pub path: String,
    pub range: Range,
}

/// A file's text as a rope, for position conversion: the buffer when open, first brought
/// in step with the disk (the index's lines come from the disk).
pub fn rope_of(cx: &Cx<'_, Services>, path: &str) -> Option<Rope> {
    let rel = cx.services.ws().root().lexical(path).ok()?;
    let mut ws = cx.services.ws();
    let text = ws.text_now(&rel);
    ultra_services::util::emit_notices(cx, &mut ws);
    text.map(|t| Rope::from_str(&t))
}

/// A 1-based line and byte column as a position in `enc`.
pub fn pos(rope: &Rope, line: u32, byte_col: u32, enc: PositionEncoding) -> Position {
    let l = (line.saturating_sub(1) as usize).min(rope.len_lines().saturating_sub(1));
    let byte = (rope.line_to_byte(l) + byte_col as usize).min(rope.len_bytes());
    to_pos(rope, rope.byte_to_char(byte), enc)
}
