//! Whole files: writes, copies, deletes and renames on disk, with open buffers following
//! (reloaded, closed or renamed) and their unsaved changes guarded.

use ultra_protocol::Source;

use super::{EditOp, FileEdits, Saved, Workspace};
use crate::error::WsError;
use crate::root::{Kind, RelPath};
use crate::text;

/// How many entries [`Workspace::delete_dir`] checks before it refuses a recursive delete by
/// a program or agent.
pub const DELETE_CHECK_LIMIT: usize = 100_000;

impl Workspace {
    /// Replace a file's whole content. An open buffer takes the change as an undoable
    /// transaction and is saved; a closed file is written atomically.
    pub fn write_file(
        &mut self,
        rel: &RelPath,
        content: &str,
        source: &Source,
        command: &str,
    ) -> Result<Saved, WsError> {
        self.write_bytes(rel, content.as_bytes(), source, command)
    }

    /// [`Workspace::write_file`] for any bytes: an open buffer (text only; other bytes are
    /// `Binary`) takes them as an undoable transaction and is saved; a closed file is written
    /// atomically, binary or not.
    pub fn write_bytes(
        &mut self,
        rel: &RelPath,
        content: &[u8],
        source: &Source,
        command: &str,
    ) -> Result<Saved, WsError> {
        if self.buffers.contains_key(rel) {
            let text =
                std::str::from_utf8(content).map_err(|_| WsError::Binary(rel.to_string()))?;
            let prepared = self.prepare(vec![FileEdits {
                path: rel.clone(),
                expected_version: None,
                expected_hash: None,
                edits: vec![EditOp::All {
                    text: text.to_string(),
                }],
            }])?;
            self.commit(prepared, source, command);
            return self.save(rel, true);
        }
        if let Ok(m) = self.root.lstat(rel)
            && m.kind == Kind::Dir
        {
            return Err(WsError::NotAFile {
                path: rel.to_string(),
                kind: "directory".into(),
            });
        }
        self.root.create_parents(rel)?;
        let meta = self.root.write_atomic(rel, content)?;
        Ok(Saved {
            path: rel.to_string(),
            version: 0,
            hash: text::hash_bytes(content),
            bytes: meta.len,
        })
    }

    /// Copy a regular file's bytes on disk (an open source buffer's unsaved changes are not
    /// included) to `to`, crash-safely, keeping its permission bits. `to` must not exist
    /// unless `overwrite`; an open buffer for `to` is reloaded, and its unsaved changes block
    /// an overwrite.
    pub fn copy_file(
        &mut self,
        from: &RelPath,
        to: &RelPath,
        overwrite: bool,
    ) -> Result<Saved, WsError> {
        let (bytes, meta) = self.root.read(from)?;
        self.write_copy(to, &bytes, meta.mode, overwrite)
    }

    /// The write half of [`Workspace::copy_file`], for callers that inspect the bytes they
    /// read before writing them (content validators).
    pub fn write_copy(
        &mut self,
        to: &RelPath,
        bytes: &[u8],
        mode: u32,
        overwrite: bool,
    ) -> Result<Saved, WsError> {
        if let Some(buf) = self.buffers.get(to)
            && buf.is_dirty()
        {
            return Err(WsError::Dirty(to.to_string()));
        }
        self.root.create_parents(to)?;
        let meta = self.root.write_with_mode(to, bytes, mode, overwrite)?;
        self.sync_disk(to)?;
        Ok(Saved {
            path: to.to_string(),
            version: self.buffers.get(to).map_or(0, |b| b.version),
            hash: text::hash_bytes(bytes),
            bytes: meta.len,
        })
    }

    /// Delete a directory; `recursive` removes its contents without following symlinks (a
    /// link is removed, never what it points to). Open buffers below it are closed, and
    /// their unsaved changes block the delete unless `force`. For programs and agents
    /// (`human: false`) nothing below may be protected (`.git` internals, restricted paths),
    /// checked over at most [`DELETE_CHECK_LIMIT`] entries; a bigger tree is refused.
    pub fn delete_dir(
        &mut self,
        rel: &RelPath,
        recursive: bool,
        force: bool,
        human: bool,
    ) -> Result<(), WsError> {
        let prefix = format!("{}/", rel.as_str());
        let inside: Vec<RelPath> = self
            .buffers
            .keys()
            .filter(|k| rel.as_str().is_empty() || k.as_str().starts_with(&prefix))
            .cloned()
            .collect();
        if !force && let Some(dirty) = inside.iter().find(|k| self.buffers[*k].is_dirty()) {
            return Err(WsError::Dirty(dirty.to_string()));
        }
        // A symlink to a directory is not a directory here: never list or delete through it.
        if self.root.lstat(rel)?.kind != Kind::Dir {
            return Err(WsError::NotADirectory(rel.to_string()));
        }
        if recursive && !human {
            let (entries, truncated) = self.root.list(rel, true, DELETE_CHECK_LIMIT)?;
            if truncated {
                return Err(WsError::Restricted {
                    path: rel.to_string(),
                    rule: format!(
                        "more than {DELETE_CHECK_LIMIT} entries; only a person may delete it"
                    ),
                });
            }
            for e in &entries {
                self.root.check_writable(&e.path, false)?;
            }
        }
        self.root.remove_dir(rel, recursive)?;
        for k in inside {
            self.drop_buffer(&k);
        }
        Ok(())
    }

    /// Delete a file (or symlink). An open buffer is closed; unsaved changes block unless
    /// `force`.
    pub fn delete_file(&mut self, rel: &RelPath, force: bool) -> Result<(), WsError> {
        if let Some(buf) = self.buffers.get(rel)
            && buf.is_dirty()
            && !force
        {
            return Err(WsError::Dirty(rel.to_string()));
        }
        self.root.remove_file(rel)?;
        self.drop_buffer(rel);
        Ok(())
    }

    /// Rename a file or directory; open buffers follow.
    pub fn rename(&mut self, from: &RelPath, to: &RelPath, overwrite: bool) -> Result<(), WsError> {
        if overwrite
            && let Some(buf) = self.buffers.get(to)
            && buf.is_dirty()
        {
            return Err(WsError::Dirty(to.to_string()));
        }
        self.root.create_parents(to)?;
        self.root.rename(from, to, overwrite)?;
        let prefix = format!("{}/", from.as_str());
        let moved: Vec<RelPath> = self
            .buffers
            .keys()
            .filter(|k| *k == from || k.as_str().starts_with(&prefix))
            .cloned()
            .collect();
        for old in moved {
            let new = if &old == from {
                to.clone()
            } else {
                // Component-wise: `old` is `from/<rest>`.
                let rest = &old.as_str()[prefix.len()..];
                rest.split('/').fold(to.clone(), |acc, c| acc.join(c))
            };
            if let Some(mut buf) = self.buffers.remove(&old) {
                buf.path = new.clone();
                buf.language = text::language_of(new.as_str());
                if let Ok(m) = self.root.stat(&new)
                    && let Some(d) = buf.disk.as_mut()
                {
                    d.meta = m;
                }
                self.buffers.insert(new.clone(), buf);
            }
            self.history.rename(&old, &new);
            if self.active.as_ref() == Some(&old) {
                self.active = Some(new);
            }
        }
        Ok(())
    }
}
