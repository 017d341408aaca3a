//! Helpers shared by command handlers.

use serde_json::json;
use ultra_core::Cx;
use ultra_protocol::event::names;
use ultra_protocol::{CommandError, SourceKind};
use ultra_workspace::workspace::{Notice, TxnOutcome};
use ultra_workspace::{RelPath, Workspace};

use crate::Services;

/// Whether the caller is a person (people are not held to restricted paths).
pub fn is_human(cx: &Cx<'_, Services>) -> bool {
    cx.source.kind == SourceKind::Human
}

/// Turn workspace notices (external changes) into events.
pub fn emit_notices(cx: &Cx<'_, Services>, ws: &mut Workspace) {
    for n in ws.take_notices() {
        let (event, path, version) = match &n {
            Notice::Reloaded { path, version } => (names::BUFFER_CHANGED, path, version),
            Notice::Conflict { path, version } | Notice::Deleted { path, version } => {
                (names::FILE_CHANGED_ON_DISK, path, version)
            }
        };
        let mut data = serde_json::to_value(&n).unwrap_or_default();
        if let Some(obj) = data.as_object_mut() {
            obj.insert("path".into(), json!(path));
            obj.insert("version".into(), json!(version));
            obj.insert("external".into(), json!(true));
        }
        cx.events.emit(event, data, None);
    }
}

/// Announce a committed transaction.
pub fn emit_changed(cx: &Cx<'_, Services>, outcome: &TxnOutcome, command: &str) {
    for f in &outcome.files {
        cx.events.emit(
            names::BUFFER_CHANGED,
            json!({ "path": f.path, "version": f.version, "txnId": outcome.txn_id, "command": command, "changedLines": f.changed_lines }),
            Some(cx.source),
        );
    }
}

/// The path a buffer command acts on: `path` if given (resolved for writing when `write`),
/// else the active buffer.
pub fn target(
    cx: &Cx<'_, Services>,
    ws: &Workspace,
    path: Option<&str>,
    write: bool,
) -> Result<RelPath, CommandError> {
    let human = is_human(cx);
    Ok(match path {
        Some(p) if write => ws.resolve_write(p, human)?,
        Some(p) => ws.resolve_read(p, human)?,
        None => {
            let rel = ws.require_active()?;
            if write {
                ws.root().check_writable(&rel, human)?;
            }
            rel
        }
    })
}

/// Text capped for a context window: at most `max_chars` chars, cut at a line boundary
/// when possible. Returns the kept text and whether it was cut.
pub fn cap_chars(text: String, max_chars: usize) -> (String, bool) {
    if text.len() <= max_chars {
        return (text, false);
    }
    let mut cut = 0;
    for (n, (i, _)) in text.char_indices().enumerate() {
        if n == max_chars {
            cut = i;
            break;
        }
    }
    if cut == 0 {
        return (text, false);
    }
    let at_line = text[..cut]
        .rfind('\n')
        .map(|i| i + 1)
        .filter(|i| *i > 0)
        .unwrap_or(cut);
    let mut text = text;
    text.truncate(at_line);
    (text, true)
}

/// The current text of a file without touching workspace state: its open buffer, else the
/// disk. For validators, which compare old and new text.
pub fn current_text(ws: &Workspace, rel: &RelPath) -> Option<String> {
    if let Some(buf) = ws.buffer(rel) {
        return Some(buf.rope.to_string());
    }
    let (bytes, _) = ws.root().read(rel).ok()?;
    String::from_utf8(bytes).ok()
}
