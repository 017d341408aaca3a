//! The code index as a workspace service: [`CodeIndex`] follows the workspace.
//!
//! Before an answer, files whose size or change time moved on disk since they
//! were indexed are reindexed (unchanged content is skipped by hash), new files are added,
//! deleted ones dropped, and open buffers are indexed from their text, so an agent sees
//! what it just edited. A watcher narrows a refresh to the paths it reported. Protected
//! paths are never indexed for anyone. The commands over the index live in
//! `ultra-commands` (`code/`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::{Mutex, RwLock};

use schemars::JsonSchema;
use serde::Serialize;
use ultra_index::build::{self, Progress};
use ultra_index::store::{Redb, Redis, Store};
use ultra_index::{Index, index_file};
use ultra_workspace::{Root, Workspace};

mod stamp;
mod text;
mod totals;
mod watch;

use stamp::{Stamp, now_ns};

pub use text::{TextIndex, TextState, TextStats, TextView};
pub use ultra_index::store::Totals;
pub use watch::WatchHandle;
use watch::{Follow, Followed};

/// How current an answer is (seed 001 answers carry it so an empty answer while warming
/// is never mistaken for "nothing there").
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct IndexState {
    /// `ready`, or `warming` while a first index is being built.
    pub state: String,
    pub files: usize,
    /// Files skipped (unknown language, binary, too large).
    pub skipped: usize,
    /// Files reindexed for this answer.
    pub refreshed: usize,
    /// While warming: files done of total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<(usize, usize)>,
    /// Why the configured store is not in use (the index then lives in memory only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_error: Option<String>,
    /// Files left out because they are hard-linked: reading through a hard link is refused
    /// (it may alias a file outside the workspace) unless `security.allowHardlinkReads`
    /// allows it. Absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_hard_links: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Where the index persists (config `index.backend`).
#[derive(Debug, Clone)]
pub enum StoreAt {
    /// An embedded redb file.
    Redb(PathBuf),
    /// A Redis server, shared by every server with the same URL and namespace.
    Redis { url: String, namespace: String },
    /// Nowhere: every process parses afresh.
    Nowhere,
}

/// Whether the root lets the index read a workspace-relative path (the walks' filter).
fn readable(root: &Root) -> impl Fn(&str) -> bool + Sync + '_ {
    |rel: &str| {
        root.lexical(rel)
            .is_ok_and(|r| root.check_readable(&r, false).is_ok())
    }
}

/// The index of one workspace.
pub struct CodeIndex {
    root: PathBuf,
    /// What the configuration leaves out (`index.exclude`).
    exclude: build::Exclude,
    /// Where records persist; opened on first use (`None` inside: unavailable, e.g. held
    /// by a running server, or a Redis server that does not answer).
    store_at: StoreAt,
    store: Mutex<Option<Option<Box<dyn Store>>>>,
    /// Why the store could not be used, for answers.
    store_error: Mutex<Option<String>>,
    index: RwLock<Index>,
    stamps: Mutex<HashMap<String, Stamp>>,
    /// Serialises refreshes (a second caller waits, then finds little to do).
    refreshing: Mutex<()>,
    skipped: Mutex<usize>,
    warming: Warming,
    /// The file-system watcher, what it reported since the last refresh, and whether a
    /// full walk has been done (from then on a watcher's reports suffice).
    follow: Follow,
    /// Open buffers' last indexed text and tree, for incremental reparses.
    trees: Mutex<HashMap<String, ultra_index::passes::Incremental>>,
    /// Files the walks found hard-linked and left out, for answers.
    hard_linked: Mutex<std::collections::HashSet<String>>,
    /// Told which files changed on disk, after the first walk (see [`CodeIndex::on_change`]).
    on_change: Mutex<Option<OnChange>>,
}

impl Followed for CodeIndex {
    fn follow(&self) -> &Follow {
        &self.follow
    }
}

/// How a file changed on disk, for [`CodeIndex::on_change`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Created,
    Changed,
    Deleted,
}

/// What [`CodeIndex::on_change`] calls: the workspace-relative paths a refresh found
/// changed, and how.
pub type OnChange = std::sync::Arc<dyn Fn(&[(String, Change)]) + Send + Sync>;

/// Whether the index is warming up (files done of total, `(0, 0)` while walking or
/// loading the store), with a signal for queries waiting for it to end.
#[derive(Default)]
struct Warming {
    progress: Mutex<Option<(usize, usize)>>,
    ended: std::sync::Condvar,
}

impl Warming {
    fn get(&self) -> Option<(usize, usize)> {
        *self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set(&self, progress: (usize, usize)) {
        let mut p = self.progress.lock().unwrap_or_else(|p| p.into_inner());
        let parsing_starts = p.is_some_and(|(_, total)| total == 0) && progress.1 > 0;
        *p = Some(progress);
        if parsing_starts {
            self.ended.notify_all();
        }
    }

    /// Mark it as warming unless it already is (keeping the progress).
    fn start(&self) {
        self.progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert((0, 0));
    }

    fn end(&self) {
        *self.progress.lock().unwrap_or_else(|p| p.into_inner()) = None;
        self.ended.notify_all();
    }

    /// Wait for the warm-up to end, but not for parsing: while the tree is walked and the
    /// store loads (`(0, 0)`, up to `LOAD_WAIT`) the answer would say next to nothing, so
    /// it waits; once files are being parsed it waits `grace` more at most. True when the
    /// warm-up has ended.
    fn wait(&self, grace: std::time::Duration) -> bool {
        const LOAD_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
        let w = self.progress.lock().unwrap_or_else(|p| p.into_inner());
        let (w, _) = self
            .ended
            .wait_timeout_while(w, LOAD_WAIT, |w| w.is_some_and(|(_, total)| total == 0))
            .unwrap_or_else(|p| p.into_inner());
        let (w, _) = self
            .ended
            .wait_timeout_while(w, grace, |w| w.is_some())
            .unwrap_or_else(|p| p.into_inner());
        w.is_none()
    }
}

/// Marks the index as warming from the start of a refresh (when asked to) and clears
/// whatever mark the refresh set when it goes, however the refresh ends.
struct WarmingMark<'a>(&'a Warming);

impl<'a> WarmingMark<'a> {
    fn new(warming: &'a Warming, mark: bool) -> WarmingMark<'a> {
        if mark {
            warming.start();
        }
        WarmingMark(warming)
    }
}

impl Drop for WarmingMark<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// How long a query waits for files being parsed before it answers `warming`: a small
/// workspace is ready within it, and a large one never holds a query up for longer.
const WARM_UP_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

impl CodeIndex {
    /// An empty index of the workspace at `root`.
    pub fn new(root: PathBuf, store_at: StoreAt, exclude: build::Exclude) -> CodeIndex {
        CodeIndex {
            root,
            exclude,
            store_at,
            store: Mutex::new(None),
            store_error: Mutex::new(None),
            index: RwLock::new(Index::new()),
            stamps: Mutex::new(HashMap::new()),
            refreshing: Mutex::new(()),
            skipped: Mutex::new(0),
            warming: Warming::default(),
            follow: Follow::default(),
            trees: Mutex::new(HashMap::new()),
            hard_linked: Mutex::new(std::collections::HashSet::new()),
            on_change: Mutex::new(None),
        }
    }

    /// Call `f` with the files each refresh finds created, changed or deleted on disk
    /// (after the first walk, which finds everything): for language servers, which must
    /// hear of changes they did not make.
    pub fn on_change(&self, f: OnChange) {
        *self.on_change.lock().unwrap_or_else(|p| p.into_inner()) = Some(f);
    }

    /// What the configuration leaves out of the index (`index.exclude`).
    pub fn exclude(&self) -> &build::Exclude {
        &self.exclude
    }

    /// Watch the workspace (inotify): from now on a refresh looks only at the paths the
    /// watcher reported instead of walking the tree, and sees every write that finished
    /// before it began. The next refresh walks the tree once, watching the directories it
    /// enters. Fails when the OS refuses an inotify instance; refreshes then keep walking.
    pub fn watch(self: &Arc<Self>) -> std::io::Result<WatchHandle> {
        watch::start(self)
    }

    /// The whole tree, watching the directories entered.
    fn walk_all(&self, allow: &(dyn Fn(&str) -> bool + Sync)) -> Vec<build::Found> {
        build::walk_entering(&self.root, "", &self.exclude, allow, &|d| {
            self.follow.watch_dir(&self.root, d)
        })
    }

    /// The files to look at for reported `paths` (a directory stands for what is under
    /// it), and the indexed files they say are gone.
    fn targeted(
        &self,
        paths: std::collections::HashSet<String>,
        allow: &(dyn Fn(&str) -> bool + Sync),
    ) -> (Vec<build::Found>, Vec<String>) {
        // Nothing reported, nothing asked about: most queries. Reading the rules would
        // read the global git config and excludes file for nothing.
        if paths.is_empty() {
            return (Vec::new(), Vec::new());
        }
        // What a walk would leave out, read once for all the paths.
        let mut rules = ultra_ignore::IgnoreRules::new(&self.root);
        let mut found = Vec::new();
        let mut gone = Vec::new();
        let idx = self.read();
        for p in paths {
            let abs = self.root.join(&p);
            match std::fs::symlink_metadata(&abs) {
                Ok(m) if m.is_dir() && !rules.ignored(&p, true) => {
                    let under = build::walk_entering(&self.root, &p, &self.exclude, allow, &|d| {
                        self.follow.watch_dir(&self.root, d)
                    });
                    let seen: std::collections::HashSet<&str> =
                        under.iter().map(|f| f.path.as_str()).collect();
                    gone.extend(
                        idx.files_under(&p)
                            .map(|f| f.path.clone())
                            .filter(|q| !seen.contains(q.as_str())),
                    );
                    found.extend(under);
                }
                Ok(m)
                    if m.is_file()
                        && build::indexable(&p, &mut rules, &self.exclude)
                        && allow(&p) =>
                {
                    use std::os::unix::fs::MetadataExt;
                    found.push(build::Found {
                        len: m.len(),
                        nlink: m.nlink(),
                        changed_ns: build::changed_ns(&m),
                        path: p,
                        abs,
                    });
                }
                _ => {
                    // Gone (or no longer indexable): the file, or what was under it.
                    gone.extend(idx.files_under(&p).map(|f| f.path.clone()));
                }
            }
        }
        gone.sort();
        gone.dedup();
        // A file may be reported itself and through its directory.
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found.dedup_by(|a, b| a.path == b.path);
        (found, gone)
    }

    /// Read access to the index.
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, Index> {
        self.index.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Index> {
        self.index.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Bring the index up to date with the disk and the open buffers, for a query;
    /// `first` are indexed before the rest when much has changed. While the index warms
    /// up, a query waits for the walk and the stored records (without them it could say
    /// next to nothing) but not for parsing beyond [`WARM_UP_GRACE`]: the files asked
    /// about are indexed now and the answer, from what is there, is marked `warming`.
    pub fn refresh(&self, root: &Root, ws: &Mutex<Workspace>, first: &[String]) -> IndexState {
        if self.is_warming() && !self.warming.wait(WARM_UP_GRACE) {
            return self.index_these(root, ws, first);
        }
        self.refresh_inner(root, ws, first, &mut |_| {}, false)
    }

    /// Mark the index as warming before a background warm-up starts, so that a query that
    /// comes first does not take on the whole cold index itself.
    pub fn begin_warm_up(&self) {
        self.warming.start();
    }

    fn is_warming(&self) -> bool {
        self.warming.get().is_some()
    }

    /// [`CodeIndex::refresh`] that always brings the index up to date, waiting for a
    /// refresh under way (a warm-up, `code.reindex`, `ultra index`), reporting progress
    /// while files are parsed.
    pub fn refresh_with(
        &self,
        root: &Root,
        ws: &Mutex<Workspace>,
        first: &[String],
        on_progress: &mut dyn FnMut(Progress),
    ) -> IndexState {
        self.refresh_inner(root, ws, first, on_progress, true)
    }

    fn refresh_inner(
        &self,
        root: &Root,
        ws: &Mutex<Workspace>,
        first: &[String],
        on_progress: &mut dyn FnMut(Progress),
        wait: bool,
    ) -> IndexState {
        // A query does not wait for a big (re)index under way: it indexes the files asked
        // about now and answers from what is there, marked `warming`.
        let _one = match self.refreshing.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                if !wait && self.is_warming() {
                    return self.index_these(root, ws, first);
                }
                self.refreshing.lock().unwrap_or_else(|p| p.into_inner())
            }
        };
        // Until the first walk is done, other queries answer `warming` (from whatever is
        // loaded) instead of waiting; whatever happens here, the mark goes at the end.
        let warm = WarmingMark::new(&self.warming, !self.follow.walked());
        let allow = readable(root);
        // With a watcher, look only at what it reported (and the files asked about);
        // without one, or after it lost events, walk the whole tree, while the stored
        // records load.
        let changes = self.follow.take_changes();
        let full_walk = changes.is_none();
        let mut loaded = false;
        let (found, gone) = std::thread::scope(|s| {
            let walk = changes.is_none().then(|| s.spawn(|| self.walk_all(&allow)));
            loaded = self.load_store();
            match (changes, walk) {
                (Some(mut paths), _) => {
                    paths.extend(first.iter().cloned());
                    self.targeted(paths, &allow)
                }
                (None, walk) => {
                    let found = walk
                        .and_then(|w| w.join().ok())
                        .unwrap_or_else(|| self.walk_all(&allow));
                    let seen: std::collections::HashSet<&str> =
                        found.iter().map(|f| f.path.as_str()).collect();
                    let gone: Vec<String> = {
                        let idx = self.read();
                        idx.files()
                            .map(|f| f.path.clone())
                            .filter(|p| !seen.contains(p.as_str()))
                            .collect()
                    };
                    (found, gone)
                }
            }
        });
        let (found, gone) = self.without_hard_links(root, found, gone, full_walk);
        let mut changed = Vec::new();
        {
            let stamps = self.stamps.lock().unwrap_or_else(|p| p.into_inner());
            for f in found {
                let stamp = Stamp::of_found(&f);
                if stamp.is_none() || stamps.get(&f.path) != stamp.as_ref() {
                    changed.push(f);
                }
            }
        }
        self.tell_changes(&changed, &gone);
        let mut refreshed = gone.len();
        if !gone.is_empty() {
            let mut idx = self.write();
            let mut stamps = self.stamps.lock().unwrap_or_else(|p| p.into_inner());
            for p in &gone {
                idx.remove(p);
                stamps.remove(p);
            }
            self.persist(&[], &[], &gone);
        }
        if !changed.is_empty() {
            let threads = ultra_index::build::cores();
            let total = changed.len();
            let big = total > build::BULK;
            if big {
                self.warming.set((0, total));
            }
            // Before any file is read: a stamp this close to the read is kept as racy.
            let read_from = now_ns();
            let stamps_for: HashMap<String, Stamp> = changed
                .iter()
                .filter_map(|f| Some((f.path.clone(), Stamp::of_found(f)?.settled(read_from))))
                .collect();
            let mut batch = Vec::new();
            let progress = build::index_files(
                changed,
                first,
                threads,
                &mut |record, content| {
                    batch.push((record, content.to_vec()));
                    // Hand records over in batches so readers are not starved.
                    if batch.len() >= 256 {
                        self.apply(std::mem::take(&mut batch), &stamps_for);
                    }
                },
                &mut |p: Progress| {
                    if big {
                        self.warming.set((p.done, p.total));
                    }
                    on_progress(p);
                },
            );
            self.apply(batch, &stamps_for);
            if big {
                // Its saves were committed lazily; a finished index is made durable.
                self.sync_store();
            }
            *self.skipped.lock().unwrap_or_else(|p| p.into_inner()) += progress.skipped;
            refreshed += total;
        }
        refreshed += self.index_buffers(ws);
        self.follow.set_walked(true);
        drop(warm);
        if refreshed > 200 || loaded {
            ultra_budget::release_freed_memory();
        }
        let idx = self.read();
        IndexState {
            state: "ready".into(),
            files: idx.len(),
            skipped: *self.skipped.lock().unwrap_or_else(|p| p.into_inner()),
            refreshed,
            progress: None,
            store_error: self.store_error(),
            skipped_hard_links: self.hard_links(),
        }
    }

    /// Tell the [`CodeIndex::on_change`] hook about a refresh's changes, unless this is
    /// the first walk.
    fn tell_changes(&self, changed: &[build::Found], gone: &[String]) {
        if !self.follow.walked() || (changed.is_empty() && gone.is_empty()) {
            return;
        }
        let Some(f) = self
            .on_change
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        else {
            return;
        };
        let changes: Vec<(String, Change)> = {
            let idx = self.read();
            changed
                .iter()
                .map(|c| {
                    let how = if idx.get(&c.path).is_some() {
                        Change::Changed
                    } else {
                        Change::Created
                    };
                    (c.path.clone(), how)
                })
                .chain(gone.iter().map(|g| (g.clone(), Change::Deleted)))
                .collect()
        };
        f(&changes);
    }

    /// How many files the walks left out as hard-linked.
    fn hard_links(&self) -> usize {
        self.hard_linked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// `found` without the hard-linked files the root refuses to read (indexing one would
    /// expose the file it may alias outside the workspace); they are remembered for the
    /// count in answers, and any stale record of them joins `gone`.
    fn without_hard_links(
        &self,
        root: &Root,
        found: Vec<build::Found>,
        mut gone: Vec<String>,
        full_walk: bool,
    ) -> (Vec<build::Found>, Vec<String>) {
        let mut linked = self.hard_linked.lock().unwrap_or_else(|p| p.into_inner());
        if full_walk {
            linked.clear();
        }
        let mut kept = Vec::with_capacity(found.len());
        for f in found {
            let refused = root
                .lexical(&f.path)
                .is_ok_and(|r| root.refuses_hardlink(&r, f.nlink));
            if refused {
                linked.insert(f.path.clone());
                if self.read().get(&f.path).is_some() {
                    gone.push(f.path);
                }
            } else {
                linked.remove(&f.path);
                kept.push(f);
            }
        }
        if !full_walk {
            // A watcher's report names only what changed: forget files since deleted or
            // no longer linked. (Dependency trees, where hard links abound, are never
            // walked, so this set stays small.)
            use std::os::unix::fs::MetadataExt;
            linked.retain(|p| {
                std::fs::symlink_metadata(self.root.join(p)).is_ok_and(|m| m.nlink() > 1)
            });
        }
        (kept, gone)
    }

    fn store_error(&self) -> Option<String> {
        self.store_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn apply(
        &self,
        batch: Vec<(ultra_index::FileIndex, Vec<u8>)>,
        stamps_for: &HashMap<String, Stamp>,
    ) {
        let mut stored = Vec::with_capacity(batch.len());
        let mut marks = Vec::new();
        {
            let mut idx = self.write();
            let mut stamps = self.stamps.lock().unwrap_or_else(|p| p.into_inner());
            for (record, content) in batch {
                let path = record.path.clone();
                if path.ends_with("go.mod") {
                    // Its module path is read from its content, which is not stored.
                    idx.set_go_module(&path, &String::from_utf8_lossy(&content));
                }
                // The same content read again keeps the resident record, which may have
                // left its details in the store: the store gets the fresh, whole record
                // (with the new stamp), never the resident one.
                let fresh = match idx.get(&path) {
                    Some(old) if old.hash == record.hash => Some(Arc::new(record)),
                    _ => {
                        idx.upsert(record);
                        idx.get(&path)
                    }
                };
                if let Some(s) = stamps_for.get(&path) {
                    stamps.insert(path.clone(), *s);
                    if path.ends_with("go.mod") {
                        // Kept as a stamp only: a check that nothing changed sees it.
                        marks.push((path, s.len, s.changed_ns));
                    } else if let Some(r) = fresh {
                        stored.push((s.len, s.changed_ns, r));
                    }
                }
            }
        }
        let refs: Vec<(u64, u128, &ultra_index::FileIndex)> =
            stored.iter().map(|(l, m, r)| (*l, *m, &**r)).collect();
        let marks: Vec<(&str, u64, u128)> =
            marks.iter().map(|(p, l, m)| (p.as_str(), *l, *m)).collect();
        if self.persist(&refs, &marks, &[]) && !stored.is_empty() {
            let saved: Vec<(String, String)> = stored
                .iter()
                .map(|(_, _, r)| (r.path.clone(), r.hash.clone()))
                .collect();
            drop(refs);
            drop(stored);
            let mut idx = self.write();
            for (path, hash) in saved {
                idx.drop_details(&path, &hash);
            }
        }
    }

    /// A record with its functions and classes, loaded from the store when the resident
    /// record left them there; if the store no longer has this version, the file is indexed
    /// again from the disk (and if that differs too, the record comes back as it is).
    pub fn details(&self, file: &Arc<ultra_index::FileIndex>) -> Arc<ultra_index::FileIndex> {
        if !file.details_stored {
            return file.clone();
        }
        let stored = {
            let slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
            match slot.as_ref() {
                Some(Some(store)) => store.get(&file.path).ok().flatten(),
                _ => None,
            }
        };
        if let Some(s) = stored.filter(|s| s.record.hash == file.hash) {
            return Arc::new(s.record);
        }
        std::fs::read(self.root.join(&file.path))
            .ok()
            .map(|content| index_file(&file.path, &content))
            .filter(|r| r.hash == file.hash)
            .map_or_else(|| file.clone(), Arc::new)
    }

    /// Open the configured store; a failure is remembered for answers and the index runs
    /// without one.
    fn open_store(&self) -> Option<Box<dyn Store>> {
        let opened: Result<Box<dyn Store>, String> = match &self.store_at {
            StoreAt::Nowhere => return None,
            StoreAt::Redb(path) => Redb::open(path)
                .map(|s| Box::new(s) as Box<dyn Store>)
                .map_err(|e| e.to_string()),
            StoreAt::Redis { url, namespace } => Redis::open(url, namespace)
                .map(|s| Box::new(s) as Box<dyn Store>)
                .map_err(|e| e.to_string()),
        };
        match opened {
            Ok(s) => Some(s),
            Err(e) => {
                *self.store_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                None
            }
        }
    }

    /// Load the stored records once, before the first refresh: files whose stamp still
    /// matches are not parsed again.
    fn load_store(&self) -> bool {
        let mut slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_some() {
            return false;
        }
        let store = self.open_store();
        if let Some(s) = &store {
            let loaded = s.load(&mut |batch| {
                let mut idx = self.write();
                let mut stamps = self.stamps.lock().unwrap_or_else(|p| p.into_inner());
                for r in batch {
                    stamps.insert(
                        r.record.path.clone(),
                        Stamp {
                            len: r.len,
                            changed_ns: r.changed_ns,
                        },
                    );
                    // Loaded without details: queries that need them ask the store.
                    idx.upsert(r.record);
                }
            });
            if let Err(e) = loaded {
                *self.store_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
            }
        }
        *slot = Some(store);
        true
    }

    /// Write changes through to the store, when there is one. A failure only costs a
    /// reparse at the next start.
    fn sync_store(&self) {
        let slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(Some(store)) = slot.as_ref()
            && let Err(e) = store.sync()
        {
            *self.store_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
        }
    }

    fn persist(
        &self,
        upserts: &[(u64, u128, &ultra_index::FileIndex)],
        marks: &[(&str, u64, u128)],
        removes: &[String],
    ) -> bool {
        let slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some(Some(store)) => store.save(upserts, marks, removes).is_ok(),
            _ => false,
        }
    }

    /// During a warm-up: index just `paths` (from their buffers or the disk) and report
    /// the index as warming.
    fn index_these(&self, root: &Root, ws: &Mutex<Workspace>, paths: &[String]) -> IndexState {
        for p in paths {
            let Ok(rel) = root.lexical(p) else { continue };
            if root.check_readable(&rel, false).is_err() {
                continue;
            }
            let text = {
                let ws = ws.lock().unwrap_or_else(|e| e.into_inner());
                ws.current_text(&rel)
            };
            if let Some(text) = text {
                let hash = ultra_index::passes::hash(text.as_bytes());
                if !self.read().is_current(p, &hash) {
                    let record = index_file(p, text.as_bytes());
                    self.write().upsert(record);
                }
            }
        }
        self.state()
    }

    /// Index open buffers from their text (what an agent just edited, saved or not).
    fn index_buffers(&self, ws: &Mutex<Workspace>) -> usize {
        let texts: Vec<(String, String)> = {
            let ws = ws.lock().unwrap_or_else(|p| p.into_inner());
            ws.buffers()
                .filter(|b| ultra_index::Lang::of_path(b.path.as_str()).is_some())
                .map(|b| (b.path.as_str().to_string(), b.rope.to_string()))
                .collect()
        };
        let mut n = 0;
        let mut trees = self.trees.lock().unwrap_or_else(|p| p.into_inner());
        // Trees are kept only for open buffers.
        trees.retain(|p, _| texts.iter().any(|(q, _)| q == p));
        for (path, text) in texts {
            let hash = ultra_index::passes::hash(text.as_bytes());
            if self.read().is_current(&path, &hash) {
                continue;
            }
            // Typing in a buffer reparses only around the edit.
            let prev = trees.remove(&path);
            let (record, state) =
                ultra_index::passes::index_incremental(&path, text.as_bytes(), prev);
            if let Some(state) = state {
                trees.insert(path.clone(), state);
            }
            self.write().upsert(record);
            // The disk stamp no longer describes the indexed content; the next refresh
            // looks at the file again.
            self.stamps
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&path);
            n += 1;
        }
        n
    }

    /// For a process about to exit: leave the in-memory index to the operating system
    /// instead of freeing it piece by piece (its millions of small allocations take
    /// longer to free than a warm start takes to load them). The store is untouched.
    pub fn forget_at_exit(&self) {
        std::mem::forget(std::mem::replace(&mut *self.write(), Index::new()));
    }

    /// Forget everything, on disk too, so the next refresh parses every file.
    pub fn clear(&self) {
        let _one = self.refreshing.lock().unwrap_or_else(|p| p.into_inner());
        {
            let mut slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
            if slot.is_none() {
                *slot = Some(self.open_store());
            }
            if let Some(Some(store)) = slot.as_ref() {
                let _ = store.clear();
            }
        }
        *self.write() = Index::new();
        self.stamps
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        *self.skipped.lock().unwrap_or_else(|p| p.into_inner()) = 0;
        self.hard_linked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        // The next refresh walks everything.
        self.follow.set_walked(false);
    }

    /// The state without refreshing.
    pub fn state(&self) -> IndexState {
        let warming = self.warming.get();
        let idx = self.read();
        IndexState {
            state: if warming.is_some() {
                "warming"
            } else {
                "ready"
            }
            .into(),
            files: idx.len(),
            skipped: *self.skipped.lock().unwrap_or_else(|p| p.into_inner()),
            refreshed: 0,
            progress: warming,
            store_error: self.store_error(),
            skipped_hard_links: self.hard_links(),
        }
    }
}
