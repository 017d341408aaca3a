//! The walk of `grep -r`: name order (GNU grep's), symlinks not followed, devices and FIFOs
//! skipped. Each directory is opened beneath the root once and its files are opened
//! relative to it. A walk is advanced an entry at a time, so the workers of a parallel
//! search take turns at one walk and it needs no thread of its own.

use std::sync::Arc;

use ultra_workspace::RelPath;
use ultra_workspace::root::{Kind, Listing, WalkDir};

use super::search::Filter;
use crate::run::fs::{ShellFs, TextView};

/// Directories nest at most this deep below the walk's top (a workspace path has at most
/// 255 components anyway).
const MAX_DEPTH: usize = 255;

/// One entry of a walk: a file to search, a file known to hold no match, or a problem to
/// report.
pub(super) enum Item {
    File {
        dir: Arc<WalkDir>,
        name: String,
        /// The name grep prints: the operand as the user wrote it, then the path below it.
        label: String,
    },
    /// A file the text index rules out, left unread (`-c` prints its 0, `-L` its name).
    NoMatch {
        label: String,
    },
    Error(String),
}

/// A walk of one directory operand.
pub(super) struct Walk<'w> {
    fs: &'w ShellFs,
    filter: &'w Filter,
    /// The text index's listings, for the directories it follows.
    view: Option<&'w dyn TextView>,
    /// Every file is reported, matching or not (`-c`, `-L`): no directory is passed over,
    /// and a file the index rules out is an [`Item::NoMatch`].
    every_file: bool,
    /// The directories being listed, outermost first.
    stack: Vec<Level>,
    /// A failure to list the operand itself, reported as the walk's only item.
    failed: Option<Item>,
}

struct Level {
    rel: RelPath,
    /// The directory opened beneath the root; for one the text index listed, only once a
    /// file in it is read or a subdirectory listed from the disk.
    dir: Option<Arc<WalkDir>>,
    /// Labels of its entries start with this (empty, or ending in `/`).
    prefix: String,
    entries: Arc<Listing>,
    /// Entries the search leaves unread (the text index knows they hold no match); empty
    /// for a directory listed from the disk.
    unread: Arc<Vec<bool>>,
    next: usize,
}

impl Level {
    /// The directory's handle, opened now if it was not.
    fn dir(&mut self, fs: &ShellFs) -> Result<Arc<WalkDir>, ultra_workspace::WsError> {
        if let Some(d) = &self.dir {
            return Ok(d.clone());
        }
        let d = Arc::new(fs.root().walk_dir_unlisted(&self.rel)?);
        self.dir = Some(d.clone());
        Ok(d)
    }
}

impl<'w> Walk<'w> {
    /// Walk `dir` (confined already), which the user named `user` (empty: the implicit `.`).
    pub(super) fn new(
        fs: &'w ShellFs,
        filter: &'w Filter,
        view: Option<&'w dyn TextView>,
        every_file: bool,
        dir: &RelPath,
        user: &str,
    ) -> Self {
        let prefix = if user.is_empty() {
            String::new()
        } else {
            format!("{}/", user.trim_end_matches('/'))
        };
        let mut walk = Walk {
            fs,
            filter,
            view,
            every_file,
            stack: Vec::new(),
            failed: None,
        };
        if let Some((entries, unread)) = walk.listed(dir) {
            walk.stack.push(Level {
                rel: dir.clone(),
                dir: None,
                prefix,
                entries,
                unread,
                next: 0,
            });
            return walk;
        }
        match fs.root().walk_dir(dir) {
            Ok((d, entries)) => walk.stack.push(Level {
                rel: dir.clone(),
                dir: Some(Arc::new(d)),
                prefix,
                entries: Arc::new(entries),
                unread: Arc::default(),
                next: 0,
            }),
            Err(e) => walk.failed = Some(Item::Error(format!("grep: {user}: {e}"))),
        }
        walk
    }

    /// The directory at `rel` as the text index lists it, if it follows it.
    fn listed(&self, rel: &RelPath) -> Option<(Arc<Listing>, Arc<Vec<bool>>)> {
        self.view?.dir(rel.as_str())
    }

    /// The next file (or problem) in walk order; `None` when the walk is over.
    pub(super) fn next(&mut self) -> Option<Item> {
        if let Some(failed) = self.failed.take() {
            return Some(failed);
        }
        loop {
            let depth = self.stack.len();
            let level = self.stack.last_mut()?;
            let i = level.next;
            if i >= level.entries.len() {
                self.stack.pop();
                continue;
            }
            level.next += 1;
            let ruled_out = level.unread.get(i) == Some(&true);
            if ruled_out && !self.every_file {
                continue;
            }
            let entries = level.entries.clone();
            let (name, kind) = &entries[i];
            match kind {
                Kind::File => {
                    let label = format!("{}{name}", level.prefix);
                    if !self.filter.included(&label) || !self.fs.readable(&level.rel.join(name)) {
                        continue;
                    }
                    if ruled_out {
                        return Some(Item::NoMatch { label });
                    }
                    return Some(match level.dir(self.fs) {
                        Ok(dir) => Item::File {
                            dir,
                            name: name.clone(),
                            label,
                        },
                        Err(e) => Item::Error(format!("grep: {label}: {e}")),
                    });
                }
                Kind::Dir if !self.filter.excludes_dir(name) => {
                    // Thousands of directories on a large tree: one string each for the
                    // labels below it, without `format!`.
                    let mut prefix = String::with_capacity(level.prefix.len() + name.len() + 1);
                    prefix.push_str(&level.prefix);
                    prefix.push_str(name);
                    prefix.push('/');
                    let label = &prefix[..prefix.len() - 1];
                    if depth > MAX_DEPTH {
                        return Some(Item::Error(format!(
                            "grep: {label}: directories nest deeper than {MAX_DEPTH}"
                        )));
                    }
                    let rel = level.rel.join(name);
                    if let Some((entries, unread)) = self.listed(&rel) {
                        self.stack.push(Level {
                            rel,
                            dir: None,
                            prefix,
                            entries,
                            unread,
                            next: 0,
                        });
                        continue;
                    }
                    let level = self.stack.last_mut()?;
                    match level.dir(self.fs).and_then(|d| d.open_dir(name)) {
                        Ok((d, entries)) => self.stack.push(Level {
                            rel,
                            dir: Some(Arc::new(d)),
                            prefix,
                            entries: Arc::new(entries),
                            unread: Arc::default(),
                            next: 0,
                        }),
                        Err(e) => return Some(Item::Error(format!("grep: {label}: {e}"))),
                    }
                }
                _ => {}
            }
        }
    }
}
