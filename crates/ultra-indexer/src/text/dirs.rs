//! The entries of every directory the text index follows (its walk entered it and the
//! watcher reports each name created, removed or changed in it), so that `grep -r` takes a
//! directory's listing from here instead of the disk and leaves unread the files the index
//! knows hold no match. On a large tree, listing every directory costs more than searching
//! the few files that can match.
//!
//! A listing holds every name, hidden and ignored ones too (GNU grep walks those; the index
//! does not, so a search lists such a directory from the disk itself). A directory is
//! `clean` when everything below it is known to the index (files by their trigrams,
//! directories followed): a search with no candidate below it does not enter it at all.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use ultra_workspace::Root;
use ultra_workspace::root::{Kind as EntryKind, Listing};

use super::{Entry, Kind};

/// One followed directory: its entries as [`Root::walk_dir`] lists them, and for each
/// whether it is a file whose trigrams the index holds.
#[derive(Clone)]
pub(super) struct Listed {
    entries: Arc<Listing>,
    /// As long as `entries`, always.
    text: Arc<Vec<bool>>,
    /// Every file below it is held by its trigrams and every directory below it is
    /// followed: a search whose candidates are none of them need not enter it.
    clean: bool,
}

/// The followed directories by workspace path (`""` is the root). Shared with the views
/// taken from it, copied only when one is still held as it changes.
#[derive(Default, Clone)]
pub(super) struct Dirs(Arc<HashMap<String, Listed>>);

/// The listing of the directory at `rel`, as a search's walk would list it; `None` when it
/// cannot be listed (a search then lists it itself, and reports why).
pub(super) fn list(root: &Root, rel: &str) -> Option<Listing> {
    let r = root.lexical(rel).ok()?;
    root.walk_dir(&r).ok().map(|(_, entries)| entries)
}

/// The directory holding `p`, and `p`'s name in it.
pub(super) fn parent(p: &str) -> (&str, &str) {
    p.rsplit_once('/').unwrap_or(("", p))
}

/// The path of `name` in `dir`.
pub(super) fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

impl Dirs {
    /// Replace every listing (after a walk of the whole tree).
    pub fn replace_all(&mut self, lists: HashMap<String, Listing>) {
        self.0 = Arc::new(lists.into_iter().map(|(d, l)| (d, listed(l))).collect());
    }

    /// Forget the listings of `p` and everything below it, then take `lists` (a walk of `p`,
    /// or nothing when `p` is no longer a followed directory).
    pub fn replace_under(&mut self, p: &str, lists: HashMap<String, Listing>) {
        let map = Arc::make_mut(&mut self.0);
        let prefix = format!("{p}/");
        if !p.is_empty() {
            map.retain(|d, _| d != p && !d.starts_with(&prefix));
        }
        map.extend(lists.into_iter().map(|(d, l)| (d, listed(l))));
    }

    /// Put what is now at `p` (`kind`, `None`: nothing) in its directory's listing, if that
    /// directory is followed.
    pub fn set_entry(&mut self, p: &str, kind: Option<EntryKind>) {
        let (dir, name) = parent(p);
        let Some(l) = Arc::make_mut(&mut self.0).get_mut(dir) else {
            return;
        };
        let (entries, text) = (Arc::make_mut(&mut l.entries), Arc::make_mut(&mut l.text));
        let at = entries.binary_search_by(|(n, _)| n.as_str().cmp(name));
        // Not text until marked so.
        match (at, kind) {
            (Ok(i), Some(k)) => {
                entries[i].1 = k;
                text[i] = false;
            }
            (Ok(i), None) => {
                entries.remove(i);
                text.remove(i);
            }
            (Err(i), Some(k)) => {
                entries.insert(i, (name.to_string(), k));
                text.insert(i, false);
            }
            (Err(_), None) => {}
        }
    }

    /// Say again which entries of the directories `dirs` (all when `None`) are files whose
    /// trigrams the index holds (`files` says).
    pub fn mark(&mut self, dirs: Option<&HashSet<String>>, files: &BTreeMap<String, Entry>) {
        let map = Arc::make_mut(&mut self.0);
        let mark = |dir: &str, l: &mut Listed| {
            l.text = Arc::new(
                l.entries
                    .iter()
                    .map(|(name, k)| {
                        *k == EntryKind::File
                            && files
                                .get(&join(dir, name))
                                .is_some_and(|e| e.kind != Kind::Unread)
                    })
                    .collect(),
            );
        };
        match dirs {
            None => map.iter_mut().for_each(|(d, l)| mark(d, l)),
            Some(dirs) => {
                for d in dirs {
                    if let Some(l) = map.get_mut(d) {
                        mark(d, l);
                    }
                }
            }
        }
        // Which subtrees are clean, for the directories marked and those above them,
        // deepest first (a directory's flag reads its subdirectories').
        let mut todo: Vec<String> = match dirs {
            None => map.keys().cloned().collect(),
            Some(dirs) => {
                let mut up = HashSet::new();
                for d in dirs {
                    let mut d = d.as_str();
                    while up.insert(d.to_string()) && !d.is_empty() {
                        d = parent(d).0;
                    }
                }
                up.into_iter().filter(|d| map.contains_key(d)).collect()
            }
        };
        let depth = |d: &str| {
            if d.is_empty() {
                0
            } else {
                1 + d.matches('/').count()
            }
        };
        todo.sort_by_key(|d| std::cmp::Reverse(depth(d)));
        for d in todo {
            let Some(l) = map.get(&d) else { continue };
            let clean = l
                .entries
                .iter()
                .zip(l.text.iter())
                .all(|((name, k), text)| match k {
                    EntryKind::File => *text,
                    EntryKind::Dir => map.get(&join(&d, name)).is_some_and(|c| c.clean),
                    // A search walks neither.
                    EntryKind::Symlink | EntryKind::Other => true,
                });
            if let Some(l) = map.get_mut(&d) {
                l.clean = clean;
            }
        }
    }

    /// Whether `p` is a followed directory.
    pub fn follows(&self, p: &str) -> bool {
        self.0.contains_key(p)
    }
}

fn listed(entries: Listing) -> Listed {
    let text = Arc::new(vec![false; entries.len()]);
    Listed {
        entries: Arc::new(entries),
        text,
        clean: false,
    }
}

/// The directories a path's change touches: its own (the entry) and, for a directory, itself.
pub(super) fn touched(p: &str, out: &mut HashSet<String>) {
    out.insert(parent(p).0.to_string());
    out.insert(p.to_string());
}

/// What the text index says of the tree to one search, as of when the search began: the
/// listing of each followed directory, and which files in it the search may leave unread
/// (their trigrams are held, and rule out its query).
pub struct TextView {
    dirs: Dirs,
    /// The candidates' names, by directory.
    candidates: HashMap<String, Vec<String>>,
    /// The directories with a candidate somewhere below them.
    above: HashSet<String>,
}

impl TextView {
    pub(super) fn new(dirs: Dirs, candidates: Vec<String>) -> TextView {
        let mut by_dir: HashMap<String, Vec<String>> = HashMap::new();
        let mut above = HashSet::new();
        for c in candidates {
            let (dir, name) = parent(&c);
            by_dir
                .entry(dir.to_string())
                .or_default()
                .push(name.to_string());
            let mut d = dir;
            while above.insert(d.to_string()) && !d.is_empty() {
                d = parent(d).0;
            }
        }
        TextView {
            dirs,
            candidates: by_dir,
            above,
        }
    }

    /// The entries of the directory `dir` (`""`: the root) when the index follows it, each
    /// with whether the search may leave it unread (a file that cannot match, or a clean
    /// directory with no candidate below it); `None`: list it from the disk.
    pub fn dir(&self, dir: &str) -> Option<(Arc<Listing>, Arc<Vec<bool>>)> {
        let map = &self.dirs.0;
        let l = map.get(dir)?;
        let mut unread = l.text.to_vec();
        for (i, (name, k)) in l.entries.iter().enumerate() {
            if *k == EntryKind::Dir {
                let sub = join(dir, name);
                unread[i] = !self.above.contains(&sub) && map.get(&sub).is_some_and(|c| c.clean);
            }
        }
        for name in self.candidates.get(dir).into_iter().flatten() {
            if let Ok(i) = l.entries.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
                unread[i] = false;
            }
        }
        Some((l.entries.clone(), Arc::new(unread)))
    }
}
