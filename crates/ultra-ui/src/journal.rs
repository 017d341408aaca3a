//! The UI's journal: one JSON line of [`Mutation`]s per applied batch, appended and synced
//! before the batch is acknowledged, replayed at start. A line cut short by a crash is
//! dropped (and cut off); a journal grown past [`COMPACT_AT`] is rewritten as the
//! mutations that rebuild the current model, atomically (temp file, sync, rename).

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use crate::model::{Mutation, Ui};

/// Journal size that triggers compaction.
pub const COMPACT_AT: u64 = 8 * 1024 * 1024;

/// The open journal.
pub struct Journal {
    path: PathBuf,
    file: File,
    len: u64,
}

impl Journal {
    /// Open (or create) the journal at `path` and replay it.
    pub fn open(path: &Path, now: u64) -> std::io::Result<(Journal, Ui)> {
        let mut ui = Ui::default();
        let mut good = 0u64;
        if let Ok(f) = File::open(path) {
            let mut r = BufReader::new(f);
            let mut line = String::new();
            loop {
                line.clear();
                let n = r.read_line(&mut line)?;
                if n == 0 || !line.ends_with('\n') {
                    break;
                }
                match serde_json::from_str::<Vec<Mutation>>(&line) {
                    Ok(ms) => {
                        for m in &ms {
                            ui.mutate(m);
                        }
                        good += n as u64;
                    }
                    Err(_) => break,
                }
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)?;
        // Whatever follows the last whole line was being written when the process died.
        if file.metadata()?.len() > good {
            file.set_len(good)?;
            file.sync_data()?;
        }
        let mut j = Journal {
            path: path.to_path_buf(),
            file,
            len: good,
        };
        if j.len > COMPACT_AT {
            j.compact(&ui, now)?;
        }
        Ok((j, ui))
    }

    /// Append one batch's mutations and sync them to disk.
    pub fn append(&mut self, ms: &[Mutation], ui: &Ui, now: u64) -> std::io::Result<()> {
        if ms.is_empty() {
            return Ok(());
        }
        let mut line = serde_json::to_vec(ms).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.sync_data()?;
        self.len += line.len() as u64;
        if self.len > COMPACT_AT {
            self.compact(ui, now)?;
        }
        Ok(())
    }

    /// Rewrite the journal as the mutations that rebuild `ui`.
    pub fn compact(&mut self, ui: &Ui, now: u64) -> std::io::Result<()> {
        let tmp = self.path.with_extension("jsonl.tmp");
        let mut line = serde_json::to_vec(&ui.rebuild(now)).map_err(std::io::Error::other)?;
        line.push(b'\n');
        {
            let mut f = File::create(&tmp)?;
            f.write_all(&line)?;
            f.sync_all()?;
        }
        std::fs::rename(&tmp, &self.path)?;
        if let Some(dir) = self.path.parent() {
            File::open(dir)?.sync_all()?;
        }
        self.file = OpenOptions::new()
            .append(true)
            .read(true)
            .open(&self.path)?;
        self.len = line.len() as u64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::parse_batch;
    use serde_json::json;

    #[test]
    fn replays_and_survives_a_torn_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ui.jsonl");
        let (mut j, mut ui) = Journal::open(&path, 0).expect("open");
        let out = ui
            .apply(
                &parse_batch(json!([
                    {"op": "window.create", "params": {"id": "w", "title": "T"}},
                    {"op": "dom.set", "params": {"windowId": "w", "target": "root", "html": "<b>x</b>"}},
                ]))
                .expect("parse"),
                0,
            )
            .expect("apply");
        j.append(&out.mutations, &ui, 0).expect("append");
        drop(j);
        // A crash in the middle of the next line.
        let mut f = OpenOptions::new().append(true).open(&path).expect("reopen");
        f.write_all(b"[{\"type\":\"windowClo").expect("torn");
        drop(f);
        let (j, again) = Journal::open(&path, 0).expect("reopen");
        assert_eq!(again.windows(), ui.windows());
        assert_eq!(j.len, std::fs::metadata(&path).expect("meta").len());
        // Compaction keeps the screen.
        let (mut j, ui2) = Journal::open(&path, 0).expect("open");
        j.compact(&ui2, 0).expect("compact");
        let (_, after) = Journal::open(&path, 0).expect("open");
        assert_eq!(after.windows(), ui.windows());
    }
}
