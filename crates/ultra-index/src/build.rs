//! Indexing a whole tree: a gitignore-aware walk, then the files parsed on every core,
//! records handed over as they are made (so answers can start while the rest warms up) and
//! progress reported as it goes. Files asked for first are indexed first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::lang::Lang;
use crate::model::FileIndex;
use crate::passes;
use ultra_ignore::IgnoreRules;

/// Directories never indexed at any depth, whatever `.gitignore` says: installed
/// dependencies and caches, never the workspace's own code.
pub const SKIP_DIRS: [&str; 4] = [".git", "node_modules", "__pycache__", ".venv"];

/// Whether the directory at workspace path `rel` ("a/b"; "" is the top) is left out by its
/// names: one of [`SKIP_DIRS`] or a hidden directory anywhere on it.
pub fn skipped_dir(rel: &str) -> bool {
    rel.split('/')
        .any(|c| SKIP_DIRS.contains(&c) || (c.starts_with('.') && c.len() > 1))
}

/// What the index leaves out beyond `.gitignore` and [`skipped_dir`]: the configured
/// `index.exclude` patterns (`.gitignore` syntax, relative to the workspace root). Build
/// output is excluded at the top by default only: deeper down a directory named `target`
/// or `build` is as likely to be source (`cc/src/target/`).
#[derive(Clone)]
pub struct Exclude(ignore::gitignore::Gitignore);

impl Exclude {
    /// The patterns for the workspace at `root` (a pattern that does not parse is left out:
    /// the configuration is checked when it is loaded).
    pub fn new(root: &Path, patterns: &[String]) -> Exclude {
        let mut b = ignore::gitignore::GitignoreBuilder::new(root);
        for p in patterns {
            let _ = b.add_line(None, p);
        }
        Exclude(
            b.build()
                .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty()),
        )
    }

    /// Nothing excluded beyond [`skipped_dir`].
    pub fn none() -> Exclude {
        Exclude(ignore::gitignore::Gitignore::empty())
    }

    /// Whether the directory at workspace path `rel` is left out.
    pub fn dir(&self, rel: &str) -> bool {
        skipped_dir(rel)
            || (!rel.is_empty() && self.0.matched_path_or_any_parents(rel, true).is_ignore())
    }

    /// A `filter_entry` for an `ignore` walk of the workspace at `root`: false for the
    /// directories left out (the walk's own top is always entered).
    pub fn walk_filter(
        &self,
        root: &Path,
    ) -> impl Fn(&ignore::DirEntry) -> bool + Send + Sync + 'static {
        let (top, excluded) = (root.to_path_buf(), self.clone());
        move |e| {
            !(e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && e.path()
                    .strip_prefix(&top)
                    .ok()
                    .and_then(|p| p.to_str())
                    .is_some_and(|rel| excluded.dir(rel)))
        }
    }

    /// Whether the file at workspace path `rel` is left out.
    pub fn file(&self, rel: &str) -> bool {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        (name.starts_with('.') && name.len() > 1)
            || skipped_dir(dir)
            || self.0.matched_path_or_any_parents(rel, false).is_ignore()
    }
}

/// Files larger than this are not read.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// A file found by the walk.
#[derive(Debug, Clone)]
pub struct Found {
    /// Workspace-relative, `/`-separated.
    pub path: String,
    pub abs: PathBuf,
    pub len: u64,
    /// Hard links to the file: more than one may alias a file outside the workspace, which
    /// the layer above refuses to read (and so does not index).
    pub nlink: u64,
    /// When it last changed ([`changed_ns`]), as the walk saw it (with `len`, the stamp a
    /// restart compares, without a second `stat`).
    pub changed_ns: Option<u128>,
}

/// When a file last changed, in nanoseconds since the epoch: its status change time, which
/// every write moves and nobody can set (a copy that keeps the modification time, `touch
/// -d` or `rsync -t`, still moves it).
pub fn changed_ns(m: &std::fs::Metadata) -> Option<u128> {
    use std::os::unix::fs::MetadataExt;
    let secs = u128::try_from(m.ctime()).ok()?;
    Some(secs * 1_000_000_000 + u128::try_from(m.ctime_nsec()).ok()?)
}

/// Counts for progress and the final report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Files indexed so far (parsed, or recorded without symbols).
    pub done: usize,
    /// Files to index.
    pub total: usize,
    /// Files skipped: unknown language, binary, too large or unreadable.
    pub skipped: usize,
    /// Bytes parsed.
    pub bytes: u64,
}

/// Every file under `root` that might be indexed: `.gitignore`d paths, hidden files and
/// what `exclude` leaves out are left out, symlinks are not followed, and `allow` (the workspace's
/// protected paths) has the last word.
pub fn walk(root: &Path, exclude: &Exclude, allow: &(dyn Fn(&str) -> bool + Sync)) -> Vec<Found> {
    walk_under(root, "", exclude, allow)
}

/// [`walk`] of the directory `dir` (relative to `root`; "" for all of it), paths still
/// relative to `root`.
pub fn walk_under(
    root: &Path,
    dir: &str,
    exclude: &Exclude,
    allow: &(dyn Fn(&str) -> bool + Sync),
) -> Vec<Found> {
    walk_entering(root, dir, exclude, allow, &|_| {})
}

/// [`walk_under`] that calls `enter` with each directory it enters (relative to `root`,
/// "" for the root), before it lists it: a watch set up there misses nothing.
pub fn walk_entering(
    root: &Path,
    dir: &str,
    exclude: &Exclude,
    allow: &(dyn Fn(&str) -> bool + Sync),
    enter: &(dyn Fn(&str) + Sync),
) -> Vec<Found> {
    if exclude.dir(dir) {
        return Vec::new();
    }
    let start = if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    };
    let mut b = ignore::WalkBuilder::new(&start);
    b.follow_links(false)
        .require_git(false)
        .threads(cores())
        .filter_entry(exclude.walk_filter(root));
    // On every core: a query that comes first waits for this walk.
    let out = std::sync::Mutex::new(Vec::new());
    b.build_parallel().run(|| {
        Box::new(|entry| {
            let Ok(entry) = entry else {
                return ignore::WalkState::Continue;
            };
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                // The walker lists a directory's entries only after this returns.
                if let Some(rel) = entry
                    .path()
                    .strip_prefix(root)
                    .ok()
                    .and_then(|p| p.to_str())
                {
                    enter(rel);
                }
            } else if let Some(found) = found(root, &entry, exclude, allow) {
                out.lock().unwrap_or_else(|p| p.into_inner()).push(found);
            }
            ignore::WalkState::Continue
        })
    });
    let mut out = out.into_inner().unwrap_or_else(|p| p.into_inner());
    // The order of a walk that sorts each directory by name: components compared in turn.
    out.sort_unstable_by(|a, b| a.path.split('/').cmp(b.path.split('/')));
    out
}

/// `entry` as a file to index, when it is one.
fn found(
    root: &Path,
    entry: &ignore::DirEntry,
    exclude: &Exclude,
    allow: &(dyn Fn(&str) -> bool + Sync),
) -> Option<Found> {
    if !entry.file_type().is_some_and(|t| t.is_file()) {
        return None;
    }
    let rel = entry
        .path()
        .strip_prefix(root)
        .ok()
        .and_then(|p| p.to_str())
        .map(|p| p.replace('\\', "/"))?;
    let name = rel.rsplit('/').next().unwrap_or(&rel);
    if (Lang::of_path(&rel).is_none() && !is_marker(name)) || exclude.file(&rel) || !allow(&rel) {
        return None;
    }
    let (len, nlink, changed_ns) = entry.metadata().map_or((0, 1, None), |m| {
        use std::os::unix::fs::MetadataExt;
        (m.len(), m.nlink(), changed_ns(&m))
    });
    Some(Found {
        path: rel,
        abs: entry.path().to_path_buf(),
        len,
        nlink,
        changed_ns,
    })
}

/// Files indexed for what they say about the code around them, not for code: `go.mod`
/// (Go's module path) and `pyproject.toml` (a Python project's import root).
pub fn is_marker(name: &str) -> bool {
    matches!(name, "go.mod" | "pyproject.toml")
}

/// Whether a single changed file would be indexed by a walk: a known language (or a
/// [marker](is_marker)), not left out by `exclude` nor by the ignore files above it.
pub fn indexable(rel: &str, rules: &mut IgnoreRules, exclude: &Exclude) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    (Lang::of_path(rel).is_some() || is_marker(name))
        && !exclude.file(rel)
        && !rules.ignored(rel, false)
}

/// The order files are indexed in: `first` (files someone is waiting for), then the
/// biggest first, so that the last to finish are small ones and no core sits idle at the
/// end waiting for one big file.
pub fn schedule(files: &mut [Found], first: &[String]) {
    files.sort_by_key(|f| (!first.contains(&f.path), std::cmp::Reverse(f.len)));
}

/// More files than this at once are a bulk index (a first index, a branch switch): they
/// are parsed in outline ([`passes::index_outline`]), and answers say the index is warming.
/// Fewer are what someone just changed, and are parsed whole, so that every syntax error
/// in them is found.
pub const BULK: usize = 200;

/// A file's record and, for `go.mod` (whose module path is read from it), its content;
/// `None` when it is too big or cannot be read.
fn index_one(f: &Found, outline: bool) -> Option<(FileIndex, Vec<u8>)> {
    if f.len > MAX_FILE_BYTES {
        return None;
    }
    let content = std::fs::read(&f.abs).ok()?;
    let record = if outline {
        passes::index_outline(&f.path, &content)
    } else {
        passes::index_file(&f.path, &content)
    };
    let keep = if f.path.ends_with("go.mod") {
        content
    } else {
        Vec::new()
    };
    Some((record, keep))
}

/// The cores to index on, asked once (the standard library reads the cgroup files at
/// each call, which an edit's reindex paid every time).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Index `files` on `threads` threads, files in `first` before the rest; `on_record` gets
/// each record on the calling thread as soon as it is made (with the file's content, for
/// `go.mod`), `on_progress` after each. More than [`BULK`] files are parsed in outline.
pub fn index_files(
    mut files: Vec<Found>,
    first: &[String],
    threads: usize,
    on_record: &mut dyn FnMut(FileIndex, &[u8]),
    on_progress: &mut dyn FnMut(Progress),
) -> Progress {
    schedule(&mut files, first);
    let total = files.len();
    let outline = total > BULK;
    let next = AtomicUsize::new(0);
    let mut progress = Progress {
        total,
        ..Progress::default()
    };
    let mut receive = |msg: Option<(FileIndex, Vec<u8>)>| {
        progress.done += 1;
        match msg {
            Some((record, content)) => {
                let name = record.path.rsplit('/').next().unwrap_or(&record.path);
                if record.lang.is_none() && !is_marker(name) {
                    progress.skipped += 1;
                } else {
                    progress.bytes += record.bytes;
                }
                on_record(record, &content);
            }
            None => progress.skipped += 1,
        }
        on_progress(progress);
    };
    // An edit's reindex (a file or two) runs here: a thread started and ended per query
    // cost more than the file (and jemalloc hands each ended thread's cache back).
    if threads <= 1 || files.len() <= 2 {
        for f in &files {
            receive(index_one(f, outline));
        }
        return progress;
    }
    // Records go to the calling thread in batches: sent one by one, each woke it up, and
    // those wake-ups cost more than storing a small file. Files someone is waiting for
    // (`first`, scheduled at the front) are sent at once, and big files (scheduled next)
    // nearly so, since progress is counted as records arrive.
    const BATCH: usize = 16;
    const BATCH_BYTES: u64 = 256 << 10;
    let urgent = files.iter().take_while(|f| first.contains(&f.path)).count();
    let (tx, rx) = mpsc::sync_channel::<Vec<Option<(FileIndex, Vec<u8>)>>>(256 / BATCH);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (files, next) = (&files, &next);
            scope.spawn(move || {
                let (mut batch, mut bytes) = (Vec::new(), 0);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    batch.push(index_one(f, outline));
                    bytes += f.len;
                    if batch.len() >= BATCH || bytes >= BATCH_BYTES || i < urgent {
                        if tx.send(std::mem::take(&mut batch)).is_err() {
                            return;
                        }
                        bytes = 0;
                    }
                }
                if !batch.is_empty() {
                    let _ = tx.send(batch);
                }
            });
        }
        drop(tx);
        for batch in rx {
            for msg in batch {
                receive(msg);
            }
        }
    });
    progress
}
