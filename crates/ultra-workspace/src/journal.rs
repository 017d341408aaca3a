//! The intent journal that makes a saved batch all or nothing on disk, across crashes.
//!
//! [`crate::Workspace::save_many`] stages every file's new content in a fsynced temp file
//! beside it, then writes a journal naming each (target, temp) pair here, durably (temp,
//! fsync, rename, fsync of the directory), and only then renames the temp files into
//! place; the journal is removed last. After a crash:
//! - no journal: nothing was put in place; every file is old, and the temp files are swept
//!   as any interrupted write's are;
//! - a journal: the batch was committed; [`recover`] (run when a workspace opens) renames
//!   every temp file still there into place, so every file is new.
//!
//! A journal belongs to the process that wrote it (its pid is in the name): one whose
//! writer still runs is left alone.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::WsError;
use crate::root::{RelPath, Root, Staged};

/// A committed batch's journal, removed by [`done`] once every file is in place.
#[derive(Debug)]
pub struct Intent {
    path: PathBuf,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    target: String,
    tmp: String,
}

#[derive(Serialize, Deserialize)]
struct Journal {
    /// The workspace root the paths are relative to.
    root: PathBuf,
    files: Vec<Entry>,
    /// Files the batch deletes, after every staged file is in place.
    #[serde(default)]
    removes: Vec<String>,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn io(op: &'static str, path: &Path, e: std::io::Error) -> WsError {
    WsError::io(op, &path.display().to_string(), e)
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Make the batch's intent durable: after this returns, a crash leaves every file new, and
/// every file of `removes` gone.
pub fn write(
    dir: &Path,
    root: &Root,
    staged: &[Staged],
    removes: &[RelPath],
) -> Result<Intent, WsError> {
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| io("create directory", dir, e))?;
    }
    let journal = Journal {
        root: root.path().to_path_buf(),
        files: staged
            .iter()
            .map(|s| Entry {
                target: s.target.as_str().to_string(),
                tmp: s.tmp.as_str().to_string(),
            })
            .collect(),
        removes: removes.iter().map(|r| r.as_str().to_string()).collect(),
    };
    let name = format!(
        "batch-{}-{}.json",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let path = dir.join(&name);
    let tmp = dir.join(format!("{name}.tmp"));
    let bytes = serde_json::to_vec(&journal).map_err(|e| WsError::Io {
        op: "encode journal",
        path: path.display().to_string(),
        source: std::io::Error::other(e),
    })?;
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        sync_dir(dir)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        let _ = std::fs::remove_file(&path);
        return Err(io("write journal", &path, e));
    }
    Ok(Intent { path })
}

/// Every file of the batch is in place: forget the intent.
pub fn done(intent: &Intent) {
    let _ = std::fs::remove_file(&intent.path);
    if let Some(dir) = intent.path.parent() {
        let _ = sync_dir(dir);
    }
}

/// The writer's pid in a journal file name, if it is one of ours.
fn writer_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("batch-")?;
    let (pid, _) = rest.split_once('-')?;
    pid.parse().ok()
}

/// Whether the process `pid` (a writer named in a temp file or journal) still runs.
pub(crate) fn alive(pid: u32) -> bool {
    // SAFETY: kill with signal 0 only checks whether the process exists.
    pid == std::process::id() || unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
}

/// Finish the batches of writers that died after committing: put each staged file still
/// there in place and delete the files the batch removes, then drop the journal. Journals never committed (`.tmp`) are dropped.
/// Returns how many batches were finished.
pub fn recover(root: &Root, dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut finished = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = writer_pid(&name) else {
            continue;
        };
        if alive(pid) {
            continue;
        }
        let path = e.path();
        if name.ends_with(".json") {
            let journal: Option<Journal> = std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok());
            // Another root's batch (a state directory shared by two spellings of a
            // path would be a bug elsewhere) is left for that root to finish.
            if journal.as_ref().is_some_and(|j| j.root != root.path()) {
                continue;
            }
            if let Some(j) = journal {
                for f in &j.files {
                    let (Ok(target), Ok(tmp)) = (root.lexical(&f.target), root.lexical(&f.tmp))
                    else {
                        continue;
                    };
                    if root.exists(&tmp) {
                        let _ = root.publish(&Staged { target, tmp });
                    }
                }
                for r in j.removes.iter().filter_map(|r| root.lexical(r).ok()) {
                    if root.exists(&r) {
                        let _ = root.remove_file(&r);
                    }
                }
                finished += 1;
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    if finished > 0 {
        let _ = sync_dir(dir);
    }
    finished
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::RootOptions;

    /// A writer that died after its journal was durable: the next open puts the staged
    /// file in place and deletes the file the batch removes.
    #[test]
    fn a_dead_writers_batch_is_finished_removals_included() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("old.ts"), "moved\n").unwrap();
        let root = Root::open(&ws, RootOptions::default()).unwrap();
        let new = root.lexical("new.ts").unwrap();
        let staged = root.stage(&new, b"moved\n").unwrap();
        let state = dir.path().join("state");
        let intent = write(&state, &root, &[staged], &[root.lexical("old.ts").unwrap()]).unwrap();
        // As if another process (one that no longer runs) had written it.
        let dead = state.join(format!("batch-{}-0.json", i32::MAX));
        std::fs::rename(&intent.path, &dead).unwrap();
        assert_eq!(recover(&root, &state), 1);
        assert_eq!(
            std::fs::read_to_string(ws.join("new.ts")).unwrap(),
            "moved\n"
        );
        assert!(!ws.join("old.ts").exists());
        assert!(!dead.exists());
    }
}
