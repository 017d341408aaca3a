//! Directories and entries: creating, removing, renaming and listing them, and sweeping
//! the temp files of writes a crash interrupted.

use std::collections::VecDeque;

use super::write::split_file;
use super::{Entry, Kind, RelPath, Root, meta_of};
use crate::error::WsError;

impl Root {
    /// Create the parent directories of `rel`.
    pub fn create_parents(&self, rel: &RelPath) -> Result<(), WsError> {
        self.writable(rel)?;
        if let Some((parent, _)) = rel.split()
            && !parent.0.is_empty()
        {
            self.dir
                .create_dir_all(parent.os())
                .map_err(|e| WsError::io("create directory", parent.as_str(), e))?;
        }
        Ok(())
    }

    /// Create a directory (and its parents when `recursive`).
    pub fn create_dir(&self, rel: &RelPath, recursive: bool) -> Result<(), WsError> {
        self.writable(rel)?;
        let r = if recursive {
            self.dir.create_dir_all(rel.os())
        } else {
            self.dir.create_dir(rel.os())
        };
        r.map_err(|e| WsError::io("create directory", rel.as_str(), e))
    }

    /// Remove a file or a symlink (never its target).
    pub fn remove_file(&self, rel: &RelPath) -> Result<(), WsError> {
        self.writable(rel)?;
        let m = self.lstat(rel)?;
        if m.kind == Kind::Dir {
            return Err(WsError::NotAFile {
                path: rel.0.clone(),
                kind: "directory; use fs.deleteDirectory".into(),
            });
        }
        let (parent, name) = split_file(rel)?;
        let dir = self.parent_dir(&parent)?;
        dir.remove_file(name)
            .map_err(|e| WsError::io("delete", rel.as_str(), e))?;
        Self::fsync_dir(&dir, parent.as_str())
    }

    /// Remove a directory; `recursive` removes its contents without following symlinks.
    pub fn remove_dir(&self, rel: &RelPath, recursive: bool) -> Result<(), WsError> {
        self.writable(rel)?;
        if rel.0.is_empty() {
            return Err(WsError::Restricted {
                path: ".".into(),
                rule: "the workspace root itself".into(),
            });
        }
        let m = self.lstat(rel)?;
        if m.kind != Kind::Dir {
            return Err(WsError::NotADirectory(rel.0.clone()));
        }
        let r = if recursive {
            self.dir.remove_dir_all(rel.os())
        } else {
            self.dir.remove_dir(rel.os())
        };
        r.map_err(|e| WsError::io("delete directory", rel.as_str(), e))
    }

    /// Rename within the root. Refuses to replace an existing target unless `overwrite`.
    pub fn rename(&self, from: &RelPath, to: &RelPath, overwrite: bool) -> Result<(), WsError> {
        self.writable(to)?;
        let (fp, fname) = from.split().ok_or_else(|| WsError::Restricted {
            path: ".".into(),
            rule: "the workspace root itself".into(),
        })?;
        let (tp, tname) = to.split().ok_or_else(|| WsError::Exists(".".into()))?;
        let fdir = self.parent_dir(&fp)?;
        let tdir = self.parent_dir(&tp)?;
        fdir.symlink_metadata(fname)
            .map_err(|e| WsError::io("rename", from.as_str(), e))?;
        if !overwrite && tdir.symlink_metadata(tname).is_ok() {
            return Err(WsError::Exists(to.0.clone()));
        }
        fdir.rename(fname, &tdir, tname)
            .map_err(|e| WsError::io("rename", from.as_str(), e))?;
        Self::fsync_dir(&tdir, tp.as_str())?;
        if fp != tp {
            Self::fsync_dir(&fdir, fp.as_str())?;
        }
        Ok(())
    }

    /// List a directory, sorted by name. `recursive` descends into subdirectories (not
    /// through symlinks) up to `max_entries`; the bool says whether the list was cut.
    pub fn list(
        &self,
        rel: &RelPath,
        recursive: bool,
        max_entries: usize,
    ) -> Result<(Vec<Entry>, bool), WsError> {
        let mut out = Vec::new();
        let mut queue = VecDeque::from([rel.clone()]);
        let mut truncated = false;
        while let Some(dir_rel) = queue.pop_front() {
            let dir = self.dir_at(&dir_rel, "list")?;
            let mut entries: Vec<Entry> = Vec::new();
            for item in dir
                .entries()
                .map_err(|e| WsError::io("list", dir_rel.as_str(), e))?
            {
                let item = item.map_err(|e| WsError::io("list", dir_rel.as_str(), e))?;
                let name = item.file_name().to_string_lossy().into_owned();
                let Ok(m) = dir.symlink_metadata(&name) else {
                    continue;
                };
                entries.push(Entry {
                    path: dir_rel.join(&name),
                    name,
                    meta: meta_of(&m),
                });
            }
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            for e in entries {
                if out.len() >= max_entries {
                    truncated = true;
                    break;
                }
                if recursive && e.meta.kind == Kind::Dir && e.name != ".git" {
                    queue.push_back(e.path.clone());
                }
                out.push(e);
            }
            if truncated {
                break;
            }
        }
        Ok((out, truncated))
    }
}

impl Root {
    /// Remove temp files left by writes that were interrupted (a crash between creating the
    /// temp file and renaming it). Only names of the form `.<name>.ultra-tmp.<pid>.<n>`
    /// whose process is gone are removed; the walk skips `.git`, `node_modules` and `target`
    /// and stops after `max_entries`. Returns how many files were removed.
    pub fn sweep_temp_files(&self, max_entries: usize) -> usize {
        if self.dry_run {
            return 0;
        }
        let Ok((entries, _)) = self.list_filtered(max_entries) else {
            return 0;
        };
        let mut removed = 0;
        for e in entries {
            if e.meta.kind != Kind::File {
                continue;
            }
            let Some(pid) = temp_file_pid(&e.name) else {
                continue;
            };
            if !crate::journal::alive(pid) && self.remove_file(&e.path).is_ok() {
                removed += 1;
            }
        }
        removed
    }

    fn list_filtered(&self, max_entries: usize) -> Result<(Vec<Entry>, bool), WsError> {
        let mut out = Vec::new();
        let mut queue = VecDeque::from([RelPath(String::new())]);
        while let Some(dir_rel) = queue.pop_front() {
            let (entries, _) = self.list(&dir_rel, false, max_entries)?;
            for e in entries {
                if out.len() >= max_entries {
                    return Ok((out, true));
                }
                if e.meta.kind == Kind::Dir
                    && !matches!(e.name.as_str(), ".git" | "node_modules" | "target")
                {
                    queue.push_back(e.path.clone());
                }
                out.push(e);
            }
        }
        Ok((out, false))
    }
}

/// The pid in a temp file name written by [`Root::write_atomic`], if it is one.
fn temp_file_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, tail) = rest.rsplit_once(".ultra-tmp.")?;
    let (pid, n) = tail.split_once('.')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

#[cfg(test)]
mod sweep_tests {
    use super::*;
    use crate::root::RootOptions;

    #[test]
    fn recognises_temp_names() {
        assert_eq!(temp_file_pid(".app.ts.ultra-tmp.1234.7"), Some(1234));
        assert_eq!(temp_file_pid("app.ts.ultra-tmp.1234.7"), None);
        assert_eq!(temp_file_pid(".app.ts.ultra-tmp.x.7"), None);
        assert_eq!(temp_file_pid(".app.ts"), None);
    }

    #[test]
    fn sweeps_only_dead_writers_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        // pid 0x7ffffff0 does not exist; our own pid does.
        let dead = dir.path().join("src/.a.rs.ultra-tmp.2147483632.0");
        let live = dir
            .path()
            .join(format!("src/.b.rs.ultra-tmp.{}.0", std::process::id()));
        std::fs::write(&dead, "x").unwrap();
        std::fs::write(&live, "x").unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "keep").unwrap();
        let root = Root::open(dir.path(), RootOptions::default()).unwrap();
        assert_eq!(root.sweep_temp_files(1000), 1);
        assert!(!dead.exists());
        assert!(live.exists());
        assert!(dir.path().join("src/a.rs").exists());
    }
}
