//! The text index as a workspace service: [`TextIndex`] keeps a trigram index of exactly
//! the files a search reads (the walk of [`ultra_search::walker`], protected paths left
//! out), current with the disk through a watcher, so that a search reads only the files
//! that may hold a match instead of the whole tree.
//!
//! It answers with candidates, never with matches: the search still reads each candidate
//! (or its open buffer) and runs the query on it, so its answer is the scan's whatever
//! the index holds, as long as every file that may match is a candidate. Files the index
//! could not read (a refused hard link, a file too large, a read error) are candidates for
//! every query, and so are open buffers; binary files are not (unless open in a buffer).

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ultra_search::trigram::{self, Gram, TrigramIndex};
use ultra_workspace::Root;

use crate::stamp::{Stamp, now_ns};
use crate::watch::{self, Follow, Followed, WatchHandle};

mod saved;

/// What the index knows of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Its trigrams are indexed.
    Text,
    /// A NUL in its first 8 KiB, as the search judges: never searched.
    Binary,
    /// Not read (hard-linked, too large, failing): searched for every query, which then
    /// decides as it does in a scan. A hard-linked file is never read into the index: a
    /// write through its other name, or a new link made to it, reports no event for it.
    Unread,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    stamp: Option<Stamp>,
    kind: Kind,
    /// Its inode: a new hard link to it, found under another name, makes it [`Kind::Unread`].
    ino: u64,
}

#[derive(Default)]
struct Inner {
    grams: TrigramIndex,
    /// Every file the search's walk finds, by path.
    files: BTreeMap<String, Entry>,
}

/// A file a walk found.
struct Seen {
    path: String,
    stamp: Option<Stamp>,
    ino: u64,
    nlink: u64,
}

impl Seen {
    fn new(path: String, m: Option<&std::fs::Metadata>) -> Seen {
        use std::os::unix::fs::MetadataExt;
        Seen {
            path,
            stamp: m.map(stamp_of),
            ino: m.map_or(0, |m| m.ino()),
            nlink: m.map_or(1, |m| m.nlink()),
        }
    }
}

/// Whether searches read the text index's candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct TextState {
    /// `ready` (searches read only the files that may match), `building` (they scan until
    /// it is), or `off` (no watcher, as in one-shot `ultra -c`: they scan).
    pub state: &'static str,
    /// Files the searches' walk finds, as the index knows them.
    pub files: usize,
}

/// How big and how current the text index is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextStats {
    /// Files the last refresh read (after a restart: those changed since the index was
    /// saved).
    pub read: usize,
    /// The index was read back from disk at start.
    pub restored: bool,
    /// Files the search's walk finds.
    pub files: usize,
    /// Of those, indexed by their trigrams.
    pub text: usize,
    /// Of those, binary.
    pub binary: usize,
    /// Bytes the postings take.
    pub posting_bytes: usize,
}

/// The trigram index of a workspace's searchable files.
pub struct TextIndex {
    root: PathBuf,
    /// Where the index is saved after a bulk build and read back at start (`None`: never).
    saved_at: Option<PathBuf>,
    inner: RwLock<Inner>,
    read: AtomicUsize,
    restored: std::sync::atomic::AtomicBool,
    follow: Follow,
    /// Serialises refreshes; a query never waits for one (it scans instead).
    refreshing: Mutex<()>,
}

impl Followed for TextIndex {
    fn follow(&self) -> &Follow {
        &self.follow
    }
}

/// Files read between two hand-overs to the index (a query waits for at most one batch).
const BATCH: usize = 256;

impl TextIndex {
    /// An empty index of the workspace at `root`, saved at `saved_at`; nothing is read
    /// until [`TextIndex::build`].
    pub fn new(root: PathBuf, saved_at: Option<PathBuf>) -> TextIndex {
        TextIndex {
            root,
            saved_at,
            inner: RwLock::new(Inner::default()),
            read: AtomicUsize::new(0),
            restored: std::sync::atomic::AtomicBool::new(false),
            follow: Follow::default(),
            refreshing: Mutex::new(()),
        }
    }

    /// Watch the workspace: refreshes then look only at what changed. The next refresh walks
    /// the tree, watching the directories it enters.
    pub fn watch(self: &Arc<Self>) -> std::io::Result<WatchHandle> {
        watch::start(self)
    }

    /// Bring the index up to date with the disk now, waiting for a refresh under way: at
    /// first from what was saved, if anything was, reading only the files changed since.
    /// A build that read many files saves the index.
    pub fn build(&self, root: &Root) {
        let _one = self.refreshing.lock().unwrap_or_else(|p| p.into_inner());
        if !self.follow.walked()
            && let Some(at) = &self.saved_at
            && let Some(restored) = saved::load(at)
        {
            *self.inner.write().unwrap_or_else(|p| p.into_inner()) = restored;
            self.restored.store(true, Ordering::Relaxed);
        }
        let changed = self.refresh_locked(root);
        if changed > ultra_index::build::BULK
            && let Some(at) = &self.saved_at
        {
            let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
            // Not saved: the next start reads every file again, as without a saved index.
            let _ = saved::save(&mut inner, at);
        }
        ultra_budget::release_freed_memory();
    }

    /// The files a match of `q` may be in, sorted, with those of `buffers` (open buffers'
    /// paths) the search would read; `None` when the index cannot say: never built, no
    /// watcher (each query would walk the tree), or a refresh under way (the caller scans).
    pub fn candidates(
        &self,
        root: &Root,
        q: &trigram::Query,
        buffers: &[&str],
    ) -> Option<Vec<String>> {
        if !self.follow.walked() || !self.follow.watching() {
            return None;
        }
        {
            let _one = match self.refreshing.try_lock() {
                Ok(g) => g,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => return None,
            };
            self.refresh_locked(root);
        }
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<String> = match inner.grams.candidates(q) {
            Some(paths) => paths.into_iter().map(str::to_string).collect(),
            None => inner
                .files
                .iter()
                .filter(|(_, e)| e.kind == Kind::Text)
                .map(|(p, _)| p.clone())
                .collect(),
        };
        out.extend(
            inner
                .files
                .iter()
                .filter(|(_, e)| e.kind == Kind::Unread)
                .map(|(p, _)| p.clone()),
        );
        out.extend(
            buffers
                .iter()
                .filter(|b| inner.files.contains_key(**b))
                .map(|b| b.to_string()),
        );
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    /// For a search whose every match matches one of the regular expressions `patterns`
    /// (`case_insensitive` or not): the files it may leave unread, as a
    /// test of a file opened for it (workspace path, size, change time in ns). A file is
    /// skipped only when the index read it as text with exactly that stamp and it is not a
    /// candidate, so a file changed since (whether or not a watcher said so), binary,
    /// hard-linked, or outside the index (hidden, ignored) is always read. `None` when the
    /// index cannot say ([`TextIndex::candidates`]) or a pattern does not parse.
    pub fn skipper(
        &self,
        root: &Root,
        patterns: &[String],
        case_insensitive: bool,
    ) -> Option<impl Fn(&str, u64, u128) -> bool + Send + Sync + 'static> {
        let plans = patterns
            .iter()
            .map(|p| trigram::Query::regex(p, case_insensitive))
            .collect::<Option<Vec<_>>>()?;
        let q = trigram::Query::any_of(plans);
        let candidates: HashSet<String> = self.candidates(root, &q, &[])?.into_iter().collect();
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        let unchanged: std::collections::HashMap<String, Stamp> = inner
            .files
            .iter()
            .filter(|(p, e)| e.kind == Kind::Text && !candidates.contains(p.as_str()))
            .filter_map(|(p, e)| Some((p.clone(), e.stamp?)))
            .collect();
        Some(move |path: &str, len: u64, changed_ns: u128| {
            unchanged.get(path) == Some(&Stamp { len, changed_ns })
        })
    }

    /// Save the index now, whatever the last build read (tests restart on it).
    pub fn save_now(&self) {
        if let Some(at) = &self.saved_at {
            let _one = self.refreshing.lock().unwrap_or_else(|p| p.into_inner());
            let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
            let _ = saved::save(&mut inner, at);
        }
    }

    /// Sizes, for reports and benchmarks.
    pub fn stats(&self) -> TextStats {
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        let count = |k: Kind| inner.files.values().filter(|e| e.kind == k).count();
        TextStats {
            read: self.read.load(Ordering::Relaxed),
            restored: self.restored.load(Ordering::Relaxed),
            files: inner.files.len(),
            text: count(Kind::Text),
            binary: count(Kind::Binary),
            posting_bytes: inner.grams.stats().2,
        }
    }

    /// Whether searches use the index, and how many files it knows.
    pub fn state(&self) -> TextState {
        let (walked, watching) = (self.follow.walked(), self.follow.watching());
        TextState {
            state: match (walked, watching) {
                (true, true) => "ready",
                (false, true) => "building",
                _ => "off",
            },
            files: self
                .inner
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .files
                .len(),
        }
    }

    /// Files read or dropped.
    fn refresh_locked(&self, root: &Root) -> usize {
        if self
            .inner
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .grams
            .lost()
        {
            // Its saved lists could not be read back: start again.
            *self.inner.write().unwrap_or_else(|p| p.into_inner()) = Inner::default();
            self.follow.set_walked(false);
        }
        let mut linked = HashSet::new();
        let (found, gone) = match self.follow.take_changes() {
            Some(paths) => self.targeted(root, paths, &mut linked),
            None => {
                let found = self.walk(root, "");
                let seen: HashSet<&str> = found.iter().map(|f| f.path.as_str()).collect();
                let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
                let gone = inner
                    .files
                    .keys()
                    .filter(|p| !seen.contains(p.as_str()))
                    .cloned()
                    .collect();
                drop(inner);
                (found, gone)
            }
        };
        let changed: Vec<Seen> = {
            let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
            found
                .into_iter()
                .filter(|f| {
                    f.stamp.is_none() || inner.files.get(&f.path).and_then(|e| e.stamp) != f.stamp
                })
                .collect()
        };
        linked.extend(changed.iter().filter(|f| f.nlink > 1).map(|f| f.ino));
        if !gone.is_empty() || !linked.is_empty() {
            let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
            for p in &gone {
                inner.files.remove(p);
                inner.grams.remove(p);
            }
            // The other names of a file just found hard-linked (the link made no event
            // for them).
            let Inner { files, grams } = &mut *inner;
            for (p, e) in files.iter_mut() {
                if e.kind != Kind::Unread && linked.contains(&e.ino) {
                    e.kind = Kind::Unread;
                    grams.remove(p);
                }
            }
        }
        let count = changed.len() + gone.len();
        self.read.store(changed.len(), Ordering::Relaxed);
        self.read_all(root, changed);
        self.follow.set_walked(true);
        count
    }

    /// Read `files` on every core and index them, in batches.
    fn read_all(&self, root: &Root, files: Vec<Seen>) {
        if files.is_empty() {
            return;
        }
        // Before any file is read: a stamp this close to the read is kept as racy.
        let read_from = now_ns();
        let next = AtomicUsize::new(0);
        let batch: Mutex<Vec<(String, Entry, Vec<Gram>)>> = Mutex::new(Vec::new());
        let work = || {
            let mut buf = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = files.get(i) else { return };
                let (kind, grams) = if f.nlink > 1 {
                    (Kind::Unread, Vec::new())
                } else {
                    read_one(root, &f.path, &mut buf)
                };
                let entry = Entry {
                    stamp: f.stamp.map(|s| s.settled(read_from)),
                    kind,
                    ino: f.ino,
                };
                let full = {
                    let mut b = batch.lock().unwrap_or_else(|p| p.into_inner());
                    b.push((f.path.clone(), entry, grams));
                    (b.len() >= BATCH).then(|| std::mem::take(&mut *b))
                };
                if let Some(full) = full {
                    self.apply(full);
                }
            }
        };
        let threads = ultra_index::build::cores().min(files.len());
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(work);
            }
            work();
        });
        self.apply(batch.into_inner().unwrap_or_else(|p| p.into_inner()));
        if files.len() > ultra_index::build::BULK {
            self.inner
                .write()
                .unwrap_or_else(|p| p.into_inner())
                .grams
                .freeze();
            ultra_budget::release_freed_memory();
        }
    }

    fn apply(&self, batch: Vec<(String, Entry, Vec<Gram>)>) {
        let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
        for (path, entry, grams) in batch {
            if entry.kind == Kind::Text {
                inner.grams.upsert_grams(&path, &grams);
            } else {
                inner.grams.remove(&path);
            }
            inner.files.insert(path, entry);
        }
    }

    /// The searchable files under `dir` ("" for all), watching the directories entered.
    fn walk(&self, root: &Root, dir: &str) -> Vec<Seen> {
        let start = if dir.is_empty() {
            self.root.clone()
        } else {
            self.root.join(dir)
        };
        let out = Mutex::new(Vec::new());
        let top = &self.root;
        ultra_search::walker(&start)
            .threads(ultra_index::build::cores())
            .build_parallel()
            .run(|| {
                Box::new(|entry| {
                    let Ok(entry) = entry else {
                        return ignore::WalkState::Continue;
                    };
                    let Some(rel) = entry.path().strip_prefix(top).ok().and_then(|p| p.to_str())
                    else {
                        return ignore::WalkState::Continue;
                    };
                    let Some(t) = entry.file_type() else {
                        return ignore::WalkState::Continue;
                    };
                    if t.is_dir() {
                        // The walker lists a directory's entries only after this returns.
                        self.follow.watch_dir(top, rel);
                    } else if t.is_file() && ultra_search::searchable(root, rel).is_some() {
                        let m = entry.metadata().ok();
                        out.lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(Seen::new(rel.to_string(), m.as_ref()));
                    }
                    ignore::WalkState::Continue
                })
            });
        out.into_inner().unwrap_or_else(|p| p.into_inner())
    }

    /// The files to look at for a watcher's reported `paths` (a directory stands for what
    /// is under it), and the indexed files they say are gone; the inodes of hard-linked
    /// files reported outside the searched set (a hidden or ignored name) go to `linked`.
    fn targeted(
        &self,
        root: &Root,
        paths: HashSet<String>,
        linked: &mut HashSet<u64>,
    ) -> (Vec<Seen>, Vec<String>) {
        let mut rules = ultra_ignore::IgnoreRules::new(&self.root);
        let mut found = Vec::new();
        let mut gone = Vec::new();
        for p in paths {
            // The walk leaves hidden names out below its top; a walk started at one would not.
            let hidden = p.split('/').any(|c| c.starts_with('.') && c.len() > 1);
            let meta = std::fs::symlink_metadata(self.root.join(&p));
            let under = self.under(&p);
            match meta {
                Ok(m) if !hidden && m.is_dir() && !rules.ignored(&p, true) => {
                    let now = self.walk(root, &p);
                    let seen: HashSet<&str> = now.iter().map(|f| f.path.as_str()).collect();
                    gone.extend(under.into_iter().filter(|q| !seen.contains(q.as_str())));
                    found.extend(now);
                }
                Ok(m)
                    if !hidden
                        && m.is_file()
                        && !rules.ignored(&p, false)
                        && ultra_search::searchable(root, &p).is_some() =>
                {
                    found.push(Seen::new(p, Some(&m)));
                }
                other => {
                    use std::os::unix::fs::MetadataExt;
                    if let Ok(m) = other
                        && m.is_file()
                        && m.nlink() > 1
                    {
                        linked.insert(m.ino());
                    }
                    gone.extend(under);
                }
            }
        }
        gone.sort_unstable();
        gone.dedup();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found.dedup_by(|a, b| a.path == b.path);
        (found, gone)
    }

    /// The indexed files at `p` or under it.
    fn under(&self, p: &str) -> Vec<String> {
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<String> = inner
            .files
            .get(p)
            .map(|_| p.to_string())
            .into_iter()
            .collect();
        let prefix = format!("{p}/");
        out.extend(
            inner
                .files
                .range::<str, _>((
                    std::ops::Bound::Included(prefix.as_str()),
                    std::ops::Bound::Unbounded,
                ))
                .take_while(|(k, _)| k.starts_with(&prefix))
                .map(|(k, _)| k.clone()),
        );
        out
    }
}

fn stamp_of(m: &std::fs::Metadata) -> Stamp {
    Stamp {
        len: m.len(),
        changed_ns: ultra_index::build::changed_ns(m).unwrap_or(0),
    }
}

/// Read the file at `rel` as a search would, and what the index keeps of it.
fn read_one(root: &Root, rel: &str, buf: &mut Vec<u8>) -> (Kind, Vec<Gram>) {
    let Some(r) = ultra_search::searchable(root, rel) else {
        return (Kind::Unread, Vec::new());
    };
    if root.read_into(&r, buf).is_err() {
        return (Kind::Unread, Vec::new());
    }
    if ultra_search::is_binary(buf) {
        return (Kind::Binary, Vec::new());
    }
    (Kind::Text, trigram::grams(buf))
}
