//! Approvals for when no person is attached (an agent over MCP stdio, a script on the
//! socket): the call is refused with CONFIRMATION_REQUIRED and an id; a person runs
//! `ultra approve ID` in a terminal; the agent's next identical call (same command, same
//! arguments, same agent) runs once. Records are small JSON files in the workspace's
//! private state directory (0700), so the approving CLI and the server need not share a
//! process. A record expires after [`TTL`].

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// How long a pending call may wait for approval, and an approval for its retry.
pub const TTL: Duration = Duration::from_secs(30 * 60);

/// One deferred call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deferred {
    pub id: String,
    pub command: String,
    /// Who asked: `ai (claude)`.
    pub who: String,
    /// BLAKE3 of the command, canonical arguments and caller.
    pub digest: String,
    /// The arguments, shown to the person.
    pub args: serde_json::Value,
    #[serde(default)]
    pub preview: Option<String>,
    pub reason: String,
    /// Milliseconds since the epoch.
    pub created: u128,
    #[serde(default)]
    pub approved: bool,
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// The directory of deferred calls.
#[derive(Debug, Clone)]
pub struct DeferredStore {
    dir: PathBuf,
}

impl DeferredStore {
    /// Records under `dir` (created 0700 on first write).
    pub fn new(dir: &Path) -> DeferredStore {
        DeferredStore {
            dir: dir.to_path_buf(),
        }
    }

    fn path(&self, id: &str) -> Option<PathBuf> {
        // Ids are ours (`defer-<hex>`); anything else cannot name a file here.
        let ok = id.starts_with("defer-")
            && id.len() <= 64
            && id[6..].chars().all(|c| c.is_ascii_hexdigit());
        ok.then(|| self.dir.join(format!("{id}.json")))
    }

    /// Every unexpired record (expired ones are removed).
    pub fn list(&self) -> Vec<Deferred> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<Deferred> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let p = e.path();
                let d: Deferred = serde_json::from_slice(&std::fs::read(&p).ok()?).ok()?;
                if now_ms().saturating_sub(d.created) > TTL.as_millis() {
                    let _ = std::fs::remove_file(&p);
                    return None;
                }
                Some(d)
            })
            .collect();
        out.sort_by_key(|d| d.created);
        out
    }

    /// One record.
    pub fn get(&self, id: &str) -> Option<Deferred> {
        self.list().into_iter().find(|d| d.id == id)
    }

    fn write(&self, d: &Deferred) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)?;
        let Some(path) = self.path(&d.id) else {
            return Err(std::io::Error::other("bad id"));
        };
        let tmp = path.with_extension("tmp");
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(&serde_json::to_vec(d).unwrap_or_default())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    }

    /// If a person approved this exact call, use the approval up (it works once) and say
    /// so; otherwise record the call (once per digest) and return its record.
    pub fn check_or_defer(&self, mut fresh: Deferred) -> Result<bool, Box<Deferred>> {
        if let Some(d) = self.list().into_iter().find(|d| d.digest == fresh.digest) {
            if d.approved {
                if let Some(p) = self.path(&d.id) {
                    let _ = std::fs::remove_file(p);
                }
                return Ok(true);
            }
            return Err(Box::new(d));
        }
        // Unique, not secret: approving takes a person at a terminal, not knowing the id.
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let seed = format!("{nanos}:{}:{}", std::process::id(), fresh.digest);
        fresh.id = format!("defer-{}", &blake3::hash(seed.as_bytes()).to_hex()[..12]);
        fresh.created = now_ms();
        fresh.approved = false;
        let _ = self.write(&fresh);
        Err(Box::new(fresh))
    }

    /// A person's answer: approve (the next identical call runs) or deny (the record goes).
    pub fn resolve(&self, id: &str, approve: bool) -> Result<Deferred, String> {
        let mut d = self.get(id).ok_or_else(|| {
            format!("no pending call `{id}` (it may have expired after 30 minutes)")
        })?;
        if approve {
            d.approved = true;
            self.write(&d).map_err(|e| e.to_string())?;
        } else if let Some(p) = self.path(id) {
            let _ = std::fs::remove_file(p);
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(digest: &str) -> Deferred {
        Deferred {
            id: String::new(),
            command: "code.editLines".into(),
            who: "ai (claude)".into(),
            digest: digest.into(),
            args: serde_json::json!({"path": "a.ts"}),
            preview: Some("-a\n+b\n".into()),
            reason: "seed 001".into(),
            created: 0,
            approved: false,
        }
    }

    #[test]
    fn defer_approve_use_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = DeferredStore::new(&dir.path().join("approvals"));
        let first = store.check_or_defer(call("d1")).unwrap_err();
        assert!(first.id.starts_with("defer-"));
        // The same call again is the same pending record.
        assert_eq!(store.check_or_defer(call("d1")).unwrap_err().id, first.id);
        assert_eq!(store.list().len(), 1);
        store.resolve(&first.id, true).expect("approve");
        assert_eq!(store.check_or_defer(call("d1")), Ok(true));
        // Used up: asking again defers anew.
        assert!(store.check_or_defer(call("d1")).is_err());
        // A denied one is gone; unknown and malformed ids are refused.
        let other = store.check_or_defer(call("d2")).unwrap_err();
        store.resolve(&other.id, false).expect("deny");
        assert!(store.resolve(&other.id, true).is_err());
        assert!(store.resolve("../../etc/passwd", true).is_err());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("approvals"))
            .expect("dir")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
