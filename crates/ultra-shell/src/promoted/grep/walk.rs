//! The walk of `grep -r`: name order (GNU grep's), symlinks not followed, devices and FIFOs
//! skipped. Each directory is opened beneath the root once and its files are opened
//! relative to it. A walk is advanced an entry at a time, so the workers of a parallel
//! search take turns at one walk and it needs no thread of its own.

use std::sync::Arc;

use ultra_workspace::RelPath;
use ultra_workspace::root::{Kind, WalkDir};

use super::search::Filter;
use crate::run::fs::ShellFs;

/// Directories nest at most this deep below the walk's top (a workspace path has at most
/// 255 components anyway).
const MAX_DEPTH: usize = 255;

/// One entry of a walk: a file to search, or a problem to report.
pub(super) enum Item {
    File {
        dir: Arc<WalkDir>,
        name: String,
        /// The name grep prints: the operand as the user wrote it, then the path below it.
        label: String,
    },
    Error(String),
}

/// A walk of one directory operand.
pub(super) struct Walk<'w> {
    fs: &'w ShellFs,
    filter: &'w Filter,
    /// The directories being listed, outermost first.
    stack: Vec<Level>,
    /// A failure to list the operand itself, reported as the walk's only item.
    failed: Option<Item>,
}

struct Level {
    dir: Arc<WalkDir>,
    /// Labels of its entries start with this (empty, or ending in `/`).
    prefix: String,
    entries: std::vec::IntoIter<(String, Kind)>,
}

impl<'w> Walk<'w> {
    /// Walk `dir` (confined already), which the user named `user` (empty: the implicit `.`).
    pub(super) fn new(fs: &'w ShellFs, filter: &'w Filter, dir: &RelPath, user: &str) -> Self {
        let prefix = if user.is_empty() {
            String::new()
        } else {
            format!("{}/", user.trim_end_matches('/'))
        };
        let mut walk = Walk {
            fs,
            filter,
            stack: Vec::new(),
            failed: None,
        };
        match fs.root().walk_dir(dir) {
            Ok((d, entries)) => walk.stack.push(Level {
                dir: Arc::new(d),
                prefix,
                entries: entries.into_iter(),
            }),
            Err(e) => walk.failed = Some(Item::Error(format!("grep: {user}: {e}"))),
        }
        walk
    }

    /// The next file (or problem) in walk order; `None` when the walk is over.
    pub(super) fn next(&mut self) -> Option<Item> {
        if let Some(failed) = self.failed.take() {
            return Some(failed);
        }
        loop {
            let depth = self.stack.len();
            let level = self.stack.last_mut()?;
            let Some((name, kind)) = level.entries.next() else {
                self.stack.pop();
                continue;
            };
            match kind {
                Kind::File => {
                    let label = format!("{}{name}", level.prefix);
                    if !self.filter.included(&label)
                        || !self.fs.readable(&level.dir.rel().join(&name))
                    {
                        continue;
                    }
                    return Some(Item::File {
                        dir: level.dir.clone(),
                        name,
                        label,
                    });
                }
                Kind::Dir if !self.filter.excludes_dir(&name) => {
                    let label = format!("{}{name}", level.prefix);
                    if depth > MAX_DEPTH {
                        return Some(Item::Error(format!(
                            "grep: {label}: directories nest deeper than {MAX_DEPTH}"
                        )));
                    }
                    match level.dir.open_dir(&name) {
                        Ok((d, entries)) => self.stack.push(Level {
                            dir: Arc::new(d),
                            prefix: label + "/",
                            entries: entries.into_iter(),
                        }),
                        Err(e) => return Some(Item::Error(format!("grep: {label}: {e}"))),
                    }
                }
                _ => {}
            }
        }
    }
}
