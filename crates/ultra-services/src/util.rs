//! Helpers shared by command handlers.

use serde_json::json;
use ultra_core::Cx;
use ultra_core::events::EventBus;
use ultra_protocol::event::names;
use ultra_protocol::{CommandError, Source, SourceKind};
use ultra_workspace::history::Existence;
use ultra_workspace::workspace::{FileOutcome, Notice, Saved, TxnOutcome};
use ultra_workspace::{RelPath, Workspace};

use crate::Services;

/// The arguments of a command that takes none (`{}`; anything else is refused).
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Whether the caller is a person (people are not held to restricted paths).
pub fn is_human(cx: &Cx<'_, Services>) -> bool {
    cx.source.kind == SourceKind::Human
}

/// Turn workspace notices (external changes) into events.
pub fn emit_notices(cx: &Cx<'_, Services>, ws: &mut Workspace) {
    publish_notices(cx.events, ws);
}

/// Turn workspace notices into events on `bus`.
pub fn publish_notices(bus: &EventBus, ws: &mut Workspace) {
    for n in ws.take_notices() {
        let (event, path, version) = match &n {
            Notice::Reloaded { path, version } => (names::BUFFER_CHANGED, path, version),
            Notice::Conflict { path, version, .. } | Notice::Deleted { path, version, .. } => {
                (names::FILE_CHANGED_ON_DISK, path, version)
            }
        };
        let mut data = serde_json::to_value(&n).unwrap_or_default();
        if let Some(obj) = data.as_object_mut() {
            obj.insert("path".into(), json!(path));
            obj.insert("version".into(), json!(version));
            obj.insert("external".into(), json!(true));
        }
        bus.emit(event, data, None);
    }
}

/// Announce a committed transaction.
pub fn emit_changed(cx: &Cx<'_, Services>, outcome: &TxnOutcome, command: &str) {
    for f in &outcome.files {
        cx.events.emit_with(names::BUFFER_CHANGED, Some(cx.source), || {
            json!({ "path": f.path, "version": f.version, "txnId": outcome.txn_id, "command": command, "changedLines": f.changed_lines })
        });
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

/// The `file://` URI of a workspace path (seed 003 `documentUri`): the absolute path with
/// every byte outside RFC 3986's unreserved set (and `/`) percent-encoded.
pub fn file_uri(root: &std::path::Path, rel: &str) -> String {
    let abs = if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    };
    let mut out = String::from("file://");
    for &b in abs.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648, padded).
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        let sextets = chunk.len() + 1;
        for i in 0..4 {
            if i < sextets {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decode standard base64. Padding is optional and ASCII whitespace (line breaks in
/// wrapped output) is skipped; any other character outside the alphabet, or a length no
/// encoder produces, is an error naming the offending offset.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    let mut padding = 0;
    for (i, c) in text.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                continue;
            }
            c if c.is_ascii_whitespace() => continue,
            _ => return Err(format!("byte {i} is not base64")),
        };
        if padding > 0 {
            return Err(format!("byte {i}: data after `=` padding"));
        }
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // 6 leftover bits mean a lone final character: no encoder emits that.
    if bits >= 6 || padding > 2 {
        return Err("truncated base64 input".into());
    }
    Ok(out)
}

/// Save an already resolved buffer under a lock the caller holds, and announce it.
pub fn save_in(
    cx: &Cx<'_, Services>,
    ws: &mut Workspace,
    rel: &RelPath,
    force: bool,
) -> Result<Saved, CommandError> {
    let saved = ws.save(rel, force);
    emit_notices(cx, ws);
    let saved = saved?;
    announce_saved(cx, &saved);
    Ok(saved)
}

/// Save several buffers as one batch, deleting the files of `removed`
/// ([`Workspace::save_and_remove`]: all or nothing on disk, across crashes) under a lock the
/// caller holds, and announce each.
pub fn save_many_in(
    cx: &Cx<'_, Services>,
    ws: &mut Workspace,
    rels: &[RelPath],
    removed: &[RelPath],
) -> Result<Vec<Saved>, CommandError> {
    let saved = ws.save_and_remove(rels, removed, false);
    emit_notices(cx, ws);
    let saved = saved?;
    for s in &saved {
        announce_saved(cx, s);
    }
    for r in removed {
        cx.events.emit(
            names::FILE_SAVED,
            json!({ "path": r.to_string(), "deleted": true }),
            Some(cx.source),
        );
    }
    Ok(saved)
}

/// Put a transaction's files on disk as one batch (see [`save_many_in`]): those it
/// removed are deleted, the others saved.
pub fn persist_txn(
    cx: &Cx<'_, Services>,
    ws: &mut Workspace,
    files: &[FileOutcome],
) -> Result<Vec<Saved>, CommandError> {
    let (removed, saved): (Vec<&FileOutcome>, Vec<&FileOutcome>) = files
        .iter()
        .partition(|f| f.existence == Existence::Removed);
    let rels = |files: Vec<&FileOutcome>| {
        files
            .iter()
            .map(|f| ws.root().lexical(&f.path))
            .collect::<Result<Vec<RelPath>, _>>()
    };
    let (saved, removed) = (rels(saved)?, rels(removed)?);
    save_many_in(cx, ws, &saved, &removed)
}

/// Announce a save as `file.saved`, and to a language server that has the file open
/// (`didSave`: rust-analyzer checks the crate then).
fn announce_saved(cx: &Cx<'_, Services>, saved: &Saved) {
    cx.events.emit(
        names::FILE_SAVED,
        json!({ "path": saved.path, "version": saved.version, "hash": saved.hash }),
        Some(cx.source),
    );
    cx.services
        .lsp()
        .saved(&cx.services.root_path().join(&saved.path));
}

/// People may touch restricted paths; agents and programs may not.
pub fn is_person(source: &Source) -> bool {
    matches!(source.kind, SourceKind::Human)
}

/// Refuse, before anyone is asked, a path the caller may not write.
pub fn writable(services: &Services, source: &Source, path: &str) -> Result<(), CommandError> {
    services.ws().resolve_write(path, is_person(source))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_known_vectors() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_encode(plain.as_bytes()), enc);
            assert_eq!(base64_decode(enc).unwrap(), plain.as_bytes());
        }
        assert_eq!(base64_decode("Zm9vYg").unwrap(), b"foob");
        assert_eq!(base64_decode("Zm9v\nYmFy\n").unwrap(), b"foobar");
        assert!(base64_decode("Zm9v!").is_err());
        assert!(base64_decode("Zm9vY").is_err());
        assert!(base64_decode("Zg==Zg==").is_err());
    }

    proptest::proptest! {
        #[test]
        fn base64_round_trips(bytes: Vec<u8>) {
            proptest::prop_assert_eq!(base64_decode(&base64_encode(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn file_uris_are_percent_encoded() {
        let root = std::path::Path::new("/w s");
        assert_eq!(file_uri(root, "a/b#c.ts"), "file:///w%20s/a/b%23c.ts");
        assert_eq!(file_uri(root, ""), "file:///w%20s");
    }
}
