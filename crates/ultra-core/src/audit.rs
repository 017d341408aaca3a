//! The NDJSON audit log: one line per executed command, written before the reply, or for
//! a read-only call on a transport that writes its own replies, just after it
//! ([`crate::Executor::execute_then`]).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use ultra_protocol::Source;

/// One audit entry. Arguments are recorded only as a digest: they can hold file contents
/// or secrets.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry<'a> {
    /// Milliseconds since the Unix epoch.
    pub ts: u128,
    pub source: &'a Source,
    pub command: &'a str,
    /// BLAKE3 of the canonical JSON arguments, hex, first 32 chars.
    pub args_digest: String,
    /// `ok`, or the error code.
    pub outcome: &'a str,
    pub duration_us: u128,
}

/// Appends entries to a file opened with `O_APPEND`, mode 0600. A failed write is reported
/// once on stderr and does not fail the command.
pub struct AuditLog {
    file: Mutex<Option<File>>,
    path: Option<PathBuf>,
}

impl AuditLog {
    /// A log that records nothing.
    pub fn disabled() -> AuditLog {
        AuditLog {
            file: Mutex::new(None),
            path: None,
        }
    }

    /// Open (or create) the log at `path`, creating parent directories 0700.
    pub fn open(path: &Path) -> std::io::Result<AuditLog> {
        if let Some(dir) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)?;
        Ok(AuditLog {
            file: Mutex::new(Some(file)),
            path: Some(path.to_path_buf()),
        })
    }

    /// Where entries go, if anywhere.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The digest recorded for a call's arguments.
    pub fn digest(args: &serde_json::Value) -> String {
        let mut bytes = Vec::new();
        canonical(args, &mut bytes);
        blake3::hash(&bytes).to_hex()[..32].to_string()
    }

    /// Append one entry as a single write, so concurrent writers never interleave lines.
    pub fn record(
        &self,
        source: &Source,
        command: &str,
        args: &serde_json::Value,
        outcome: &str,
        duration_us: u128,
    ) {
        let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let Some(file) = guard.as_mut() else { return };
        let ts = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let entry = AuditEntry {
            ts,
            source,
            command,
            args_digest: Self::digest(args),
            outcome,
            duration_us,
        };
        let mut line = serde_json::to_vec(&entry).unwrap_or_default();
        line.push(b'\n');
        if let Err(e) = file.write_all(&line) {
            eprintln!("ultra: audit log write failed ({e}); further entries are dropped");
            *guard = None;
        }
    }
}

/// JSON with every object's keys sorted, so that the same arguments give the same digest
/// whatever order a client wrote them in (objects otherwise keep their order).
fn canonical(v: &serde_json::Value, out: &mut Vec<u8>) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let _ = serde_json::to_writer(&mut *out, k);
                out.push(b':');
                canonical(&map[k], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::AuditLog;

    #[test]
    fn the_digest_ignores_key_order() {
        let a = json!({"path": "a.rs", "edits": [{"old": "x", "new": "y"}], "n": 1.5});
        let b: serde_json::Value = serde_json::from_str(
            r#"{"n": 1.5, "edits": [{"new": "y", "old": "x"}], "path": "a.rs"}"#,
        )
        .expect("json");
        assert_eq!(AuditLog::digest(&a), AuditLog::digest(&b));
        assert_ne!(
            AuditLog::digest(&a),
            AuditLog::digest(
                &json!({"path": "b.rs", "edits": [{"old": "x", "new": "y"}], "n": 1.5})
            )
        );
    }
}
