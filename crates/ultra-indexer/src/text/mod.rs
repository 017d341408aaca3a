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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ultra_search::trigram::{self, Gram, TrigramIndex};
use ultra_workspace::Root;
use ultra_workspace::root::{Kind as EntryKind, Listing};

use crate::stamp::{Stamp, now_ns};
use crate::watch::{self, Follow, Followed, WatchHandle};

mod dirs;
mod saved;

pub use dirs::TextView;

/// What the index knows of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Its trigrams are indexed.
    Text,
    /// A NUL in its first 8 KiB, as the search judges: never searched by
    /// `search.findInFiles`. Its trigrams are indexed too, for `grep -r`, which reports a
    /// binary file that matches.
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
    /// `search.findInFiles`'s walk finds it; otherwise it is a hidden or ignored file in a
    /// followed directory, indexed for `grep -r` alone.
    searched: bool,
}

#[derive(Default)]
struct Inner {
    grams: TrigramIndex,
    /// Every file the search's walk finds, and every other regular file in the directories
    /// it enters, by path.
    files: BTreeMap<String, Entry>,
    /// The listings of the directories the walk entered (not saved: the first refresh after
    /// a start walks the tree).
    dirs: dirs::Dirs,
    /// The files of kind [`Kind::Unread`] (candidates for every query), kept apart so that
    /// a query does not look through every file for them.
    unread: BTreeSet<String>,
    /// How many files `search.findInFiles` searches (`ultra.getWorkspaceInfo` asks often).
    searched: usize,
}

impl Inner {
    /// Hold `entry` for `path`, with its trigrams when it was read.
    fn put(&mut self, path: String, entry: Entry, grams: &[Gram]) {
        if entry.kind == Kind::Unread {
            self.grams.remove(&path);
            self.unread.insert(path.clone());
        } else {
            self.grams.upsert_grams(&path, grams);
            self.unread.remove(&path);
        }
        self.searched += usize::from(entry.searched);
        if let Some(old) = self.files.insert(path, entry) {
            self.searched -= usize::from(old.searched);
        }
    }

    /// Forget the file at `path`.
    fn forget(&mut self, path: &str) {
        if let Some(old) = self.files.remove(path) {
            self.searched -= usize::from(old.searched);
        }
        self.grams.remove(path);
        self.unread.remove(path);
    }
}

/// How a refresh changes the followed directories' listings.
#[derive(Default)]
struct Relist {
    /// A walk of the whole tree listed these.
    all: Option<HashMap<String, Listing>>,
    /// The directory at each path and everything below is now as listed (nothing: it is no
    /// longer followed).
    under: Vec<(String, HashMap<String, Listing>)>,
    /// What is now at each reported path, for its directory's listing.
    entries: Vec<(String, Option<EntryKind>)>,
}

/// A file a walk found.
struct Seen {
    path: String,
    stamp: Option<Stamp>,
    ino: u64,
    nlink: u64,
    searched: bool,
}

impl Seen {
    fn new(path: String, m: Option<&std::fs::Metadata>, searched: bool) -> Seen {
        use std::os::unix::fs::MetadataExt;
        Seen {
            path,
            stamp: m.map(stamp_of),
            ino: m.map_or(0, |m| m.ino()),
            nlink: m.map_or(1, |m| m.nlink()),
            searched,
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
/// Largest hidden or ignored file read for `grep -r` alone; a larger one (a database, a
/// log, a build artefact beside the sources) is left unread and `grep` reads it itself.
const GREP_ONLY_MAX: u64 = 4 << 20;

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
        let _one = self.refreshed(root)?;
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        Some(candidates_in(&inner, q, buffers, false))
    }

    /// For a search of the files on disk whose every match matches one of the regular
    /// expressions `patterns` (`case_insensitive` or not): the followed directories'
    /// listings and which files it may leave unread, as of now. `None` when the index
    /// cannot say ([`TextIndex::candidates`]) or a pattern does not parse.
    pub fn view(
        &self,
        root: &Root,
        patterns: &[String],
        case_insensitive: bool,
    ) -> Option<TextView> {
        let plans = patterns
            .iter()
            .map(|p| trigram::Query::regex(p, case_insensitive))
            .collect::<Option<Vec<_>>>()?;
        let q = trigram::Query::any_of(plans);
        let _one = self.refreshed(root)?;
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        Some(TextView::new(
            inner.dirs.clone(),
            candidates_in(&inner, &q, &[], true),
        ))
    }

    /// The index brought up to date with what the watcher reported, and no refresh let in
    /// while the guard is held; `None` when it cannot answer (never built, no watcher, or
    /// a refresh under way).
    fn refreshed(&self, root: &Root) -> Option<std::sync::MutexGuard<'_, ()>> {
        if !self.follow.walked() || !self.follow.watching() {
            return None;
        }
        let one = match self.refreshing.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        self.refresh_locked(root);
        Some(one)
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
        let count = |k: Kind| {
            inner
                .files
                .values()
                .filter(|e| e.searched && e.kind == k)
                .count()
        };
        TextStats {
            read: self.read.load(Ordering::Relaxed),
            restored: self.restored.load(Ordering::Relaxed),
            files: inner.files.values().filter(|e| e.searched).count(),
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
                .searched,
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
        let mut relist = Relist::default();
        let (found, gone) = match self.follow.take_changes() {
            Some(paths) => self.targeted(root, paths, &mut linked, &mut relist),
            None => {
                let (found, lists) = self.walk(root, "");
                relist.all = Some(lists);
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
                // Changed, or now searched by `search.findInFiles` or no longer (an ignore
                // rule changed).
                .filter(|f| {
                    let known = inner.files.get(&f.path);
                    f.stamp.is_none()
                        || known.and_then(|e| e.stamp) != f.stamp
                        || known.is_some_and(|e| e.searched != f.searched)
                })
                .collect()
        };
        linked.extend(changed.iter().filter(|f| f.nlink > 1).map(|f| f.ino));
        // The directories whose files' kinds changed with no event, for their listings'
        // marks (each reported path marks its own).
        let mut touched = HashSet::new();
        if !gone.is_empty() || !linked.is_empty() {
            let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
            for p in &gone {
                inner.forget(p);
            }
            // The other names of a file just found hard-linked (the link made no event
            // for them).
            let Inner {
                files,
                grams,
                unread,
                ..
            } = &mut *inner;
            for (p, e) in files.iter_mut() {
                if e.kind != Kind::Unread && linked.contains(&e.ino) {
                    e.kind = Kind::Unread;
                    grams.remove(p);
                    unread.insert(p.clone());
                    dirs::touched(p, &mut touched);
                }
            }
        }
        let count = changed.len() + gone.len();
        self.read.store(changed.len(), Ordering::Relaxed);
        self.read_all(root, changed);
        self.relist(relist, touched);
        self.follow.set_walked(true);
        count
    }

    /// Apply a refresh's changes to the listings, then mark again the directories whose
    /// entries or files changed.
    fn relist(&self, relist: Relist, mut touched: HashSet<String>) {
        let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
        let Inner { files, dirs, .. } = &mut *inner;
        if let Some(all) = relist.all {
            dirs.replace_all(all);
            dirs.mark(None, files);
            return;
        }
        for (p, lists) in relist.under {
            touched.extend(lists.keys().cloned());
            dirs.replace_under(&p, lists);
        }
        for (p, kind) in relist.entries {
            dirs::touched(&p, &mut touched);
            dirs.set_entry(&p, kind);
        }
        dirs.mark(Some(&touched), files);
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
                let too_large = !f.searched && f.stamp.is_none_or(|s| s.len > GREP_ONLY_MAX);
                let (kind, grams) = if f.nlink > 1 || too_large {
                    (Kind::Unread, Vec::new())
                } else {
                    read_one(root, &f.path, &mut buf)
                };
                let entry = Entry {
                    stamp: f.stamp.map(|s| s.settled(read_from)),
                    kind,
                    ino: f.ino,
                    searched: f.searched,
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
            inner.put(path, entry, &grams);
        }
    }

    /// The searchable files under `dir` ("" for all), watching the directories entered,
    /// and their listings.
    fn walk(&self, root: &Root, dir: &str) -> (Vec<Seen>, HashMap<String, Listing>) {
        let start = if dir.is_empty() {
            self.root.clone()
        } else {
            self.root.join(dir)
        };
        let out = Mutex::new(Vec::new());
        let lists = Mutex::new(HashMap::new());
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
                        // The walker lists a directory's entries only after this returns,
                        // and so does this: whatever changes after either listing is
                        // reported.
                        self.follow.watch_dir(top, rel);
                        if let Some(l) = dirs::list(root, rel) {
                            lists
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .insert(rel.to_string(), l);
                        }
                    } else if t.is_file() && ultra_search::searchable(root, rel).is_some() {
                        let m = entry.metadata().ok();
                        out.lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(Seen::new(rel.to_string(), m.as_ref(), true));
                    }
                    ignore::WalkState::Continue
                })
            });
        let mut out = out.into_inner().unwrap_or_else(|p| p.into_inner());
        let lists = lists.into_inner().unwrap_or_else(|p| p.into_inner());
        // The other regular files of the directories entered (hidden or ignored names), for
        // `grep -r`.
        let searched: HashSet<&str> = out.iter().map(|f| f.path.as_str()).collect();
        let mut others = Vec::new();
        for (dir, entries) in &lists {
            for (name, kind) in entries.iter() {
                let path = dirs::join(dir, name);
                if *kind == EntryKind::File
                    && !searched.contains(path.as_str())
                    && ultra_search::searchable(root, &path).is_some()
                    && let Ok(m) = std::fs::symlink_metadata(self.root.join(&path))
                    && m.is_file()
                {
                    others.push(Seen::new(path, Some(&m), false));
                }
            }
        }
        out.extend(others);
        (out, lists)
    }

    /// The files to look at for a watcher's reported `paths` (a directory stands for what
    /// is under it), and the indexed files they say are gone; the inodes of hard-linked
    /// files reported outside the searched set (a hidden or ignored name) go to `linked`,
    /// and what the paths now are to `relist`.
    fn targeted(
        &self,
        root: &Root,
        paths: HashSet<String>,
        linked: &mut HashSet<u64>,
        relist: &mut Relist,
    ) -> (Vec<Seen>, Vec<String>) {
        let mut rules = ultra_ignore::IgnoreRules::new(&self.root);
        let mut found = Vec::new();
        let mut gone = Vec::new();
        for p in paths {
            // The walk leaves hidden names out below its top; a walk started at one would not.
            let hidden = p.split('/').any(|c| c.starts_with('.') && c.len() > 1);
            let meta = std::fs::symlink_metadata(self.root.join(&p));
            let under = self.under(&p);
            relist
                .entries
                .push((p.clone(), meta.as_ref().ok().map(entry_kind)));
            match meta {
                Ok(m) if !hidden && m.is_dir() && !rules.ignored(&p, true) => {
                    let (now, lists) = self.walk(root, &p);
                    let seen: HashSet<&str> = now.iter().map(|f| f.path.as_str()).collect();
                    gone.extend(under.into_iter().filter(|q| !seen.contains(q.as_str())));
                    found.extend(now);
                    relist.under.push((p, lists));
                    continue;
                }
                Ok(m)
                    if m.is_file()
                        && self.follows(dirs::parent(&p).0)
                        && ultra_search::searchable(root, &p).is_some() =>
                {
                    let searched = !hidden && !rules.ignored(&p, false);
                    found.push(Seen::new(p.clone(), Some(&m), searched));
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
            // Not a followed directory (any more): neither is anything below it.
            if self.follows(&p) {
                relist.under.push((p, HashMap::new()));
            }
        }
        gone.sort_unstable();
        gone.dedup();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found.dedup_by(|a, b| a.path == b.path);
        (found, gone)
    }

    /// Whether the directory at `p` is followed (listed).
    fn follows(&self, p: &str) -> bool {
        self.inner
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .dirs
            .follows(p)
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

/// What a directory listing says an entry is.
fn entry_kind(m: &std::fs::Metadata) -> EntryKind {
    let t = m.file_type();
    if t.is_symlink() {
        EntryKind::Symlink
    } else if t.is_dir() {
        EntryKind::Dir
    } else if t.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    }
}

/// The files a match of `q` may be in, sorted: those whose trigrams allow it, those never
/// read, and the open `buffers` the search reads. Of the files `search.findInFiles` reads
/// (text files its walk finds), or with `every`, of all the files the index holds.
fn candidates_in(inner: &Inner, q: &trigram::Query, buffers: &[&str], every: bool) -> Vec<String> {
    let wanted = |e: &Entry| every || (e.searched && e.kind != Kind::Binary);
    // Binary files' lists hold only their printable trigrams.
    let binary_q = q.keeping(trigram::printable);
    let split = every && binary_q != *q;
    let of = |q: &trigram::Query, keep: &dyn Fn(&Entry) -> bool| -> Vec<String> {
        match inner.grams.candidates(q) {
            Some(paths) => paths
                .into_iter()
                .filter(|p| inner.files.get(*p).is_some_and(keep))
                .map(str::to_string)
                .collect(),
            None => inner
                .files
                .iter()
                .filter(|(_, e)| e.kind != Kind::Unread && keep(e))
                .map(|(p, _)| p.clone())
                .collect(),
        }
    };
    let mut out = if split {
        let mut out = of(q, &|e| e.kind == Kind::Text);
        out.extend(of(&binary_q, &|e| e.kind == Kind::Binary));
        out
    } else {
        of(q, &wanted)
    };
    out.extend(
        inner
            .unread
            .iter()
            .filter(|p| inner.files.get(*p).is_some_and(wanted))
            .cloned(),
    );
    out.extend(
        buffers
            .iter()
            .filter(|b| inner.files.get(**b).is_some_and(|e| e.searched))
            .map(|b| b.to_string()),
    );
    out.sort_unstable();
    out.dedup();
    out
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
        let mut grams = trigram::grams(buf);
        grams.retain(|g| trigram::printable(*g));
        return (Kind::Binary, grams);
    }
    (Kind::Text, trigram::grams(buf))
}
