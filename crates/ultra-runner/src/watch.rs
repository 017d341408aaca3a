//! `run_tests`' watch mode: after the first run, a background job re-runs the same tests
//! whenever a source file changes, and announces each run (`tests.started`,
//! `tests.finished`). Changes that are not the project's sources do not count: build
//! output, dependencies, caches, VCS internals, Ultra's own temp files and whatever the
//! ignore files above a path ignore, at the top or below (otherwise a run's own output
//! would start the next run).
//! Bursts are gathered (300 ms of quiet, at most 2 s) into one run. A watch ends when it is
//! stopped, when the session that started it ends, or with the server; a run in progress
//! is killed with its process group.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use ultra_core::events::EventBus;
use ultra_ignore::{IGNORE_FILES, IgnoreRules};
use ultra_protocol::{CommandError, ErrorCode, Source};

use crate::test_runner::{Runner, TestRun, run_once};
use crate::{Cancel, Sandbox};

/// Most watches a workspace runs at once.
const MAX_WATCHES: usize = 4;
/// Quiet time that ends a burst of changes.
const QUIET: Duration = Duration::from_millis(300);
/// Longest a burst is gathered before the run starts anyway.
const MAX_GATHER: Duration = Duration::from_secs(2);
/// Most changed paths named in an event.
const MAX_NAMED: usize = 20;
/// Most output carried by a `tests.finished` event (its end, where the summary is).
const EVENT_OUTPUT: usize = 8 * 1024;
/// Directories whose changes never start a run.
const SKIP_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".ultra",
    "target",
    "node_modules",
    "dist",
    "build",
    "coverage",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".venv",
    "venv",
    ".next",
    ".turbo",
];

/// What a watch runs, and for whom.
pub struct Job {
    pub runner: Runner,
    /// The argv of every run.
    pub command: Vec<String>,
    pub timeout: Duration,
    /// Most output bytes kept per stream.
    pub cap: usize,
    /// Who started it: events go to its session, and the session's end stops the watch.
    pub source: Source,
    /// Reruns are confined as the first run was.
    pub sandbox: Option<Arc<Sandbox>>,
}

/// Changes seen since the last run started.
#[derive(Default)]
struct Pending {
    paths: BTreeSet<String>,
    first: Option<Instant>,
    last: Option<Instant>,
}

/// One running watch.
struct Watch {
    id: String,
    job: Job,
    ended: AtomicBool,
    cancel: Cancel,
    running: AtomicBool,
    runs: AtomicU64,
    last: Mutex<TestRun>,
    pending: Mutex<Pending>,
    wake: Condvar,
    watcher: Mutex<Option<notify::RecommendedWatcher>>,
}

impl Watch {
    fn end(&self) {
        self.ended.store(true, Ordering::SeqCst);
        self.cancel.cancel();
        // Dropping the watcher stops its thread and its inotify watches.
        self.watcher
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        self.wake.notify_all();
    }

    fn info(&self) -> WatchInfo {
        WatchInfo {
            id: self.id.clone(),
            runner: self.job.runner,
            command: self.job.command.clone(),
            runs: self.runs.load(Ordering::SeqCst),
            running: self.running.load(Ordering::SeqCst),
            agent_id: self.job.source.agent_id.clone(),
            session_id: self.job.source.session_id.clone(),
            last: self.last.lock().unwrap_or_else(|p| p.into_inner()).clone(),
        }
    }
}

/// Which changed paths count, relative to the root.
struct Filter {
    root: PathBuf,
    /// The ignore files above each path, as a walk reads them (a changed one is read again).
    ignores: Mutex<IgnoreRules>,
}

impl Filter {
    fn new(root: &Path) -> Filter {
        Filter {
            root: root.to_path_buf(),
            ignores: Mutex::new(IgnoreRules::new(root)),
        }
    }

    fn relevant(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.root).ok()?;
        let text = rel.to_str()?;
        if text.is_empty() {
            return None;
        }
        if rel.components().any(|c| {
            c.as_os_str()
                .to_str()
                .is_some_and(|c| SKIP_DIRS.contains(&c))
        }) {
            return None;
        }
        let name = rel.file_name()?.to_str()?;
        if name.contains(".ultra-tmp.") || name.ends_with('~') || name.ends_with(".swp") {
            return None;
        }
        let mut ignores = self.ignores.lock().unwrap_or_else(|p| p.into_inner());
        if IGNORE_FILES.contains(&name) {
            *ignores = IgnoreRules::new(&self.root);
        }
        // Output a run writes into a directory ignored below the top (`pkg/.gitignore`
        // saying `out/`) must not start another run.
        if ignores.ignored(text, path.is_dir()) {
            return None;
        }
        Some(text.to_string())
    }
}

/// Every watch of the workspace.
#[derive(Default)]
pub struct TestWatches {
    watches: Mutex<HashMap<String, Arc<Watch>>>,
    next: AtomicU64,
}

impl TestWatches {
    /// Start watching for `job`, whose first run gave `first`. The same tests already
    /// watched for the same session keep their watch (its id is returned).
    pub fn start(
        &self,
        root: &Path,
        job: Job,
        first: &TestRun,
        events: EventBus,
    ) -> Result<String, CommandError> {
        let mut all = self.watches.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = all.values().find(|w| {
            w.job.command == job.command && w.job.source.session_id == job.source.session_id
        }) {
            *w.last.lock().unwrap_or_else(|p| p.into_inner()) = first.clone();
            return Ok(w.id.clone());
        }
        if all.len() >= MAX_WATCHES {
            return Err(CommandError::new(
                ErrorCode::RateLimited,
                format!("{MAX_WATCHES} test watches are running already"),
            )
            .with_details(json!({ "watches": all.keys().collect::<Vec<_>>() }))
            .with_suggestion("stop one with stop_test_watch (test_watches lists them)"));
        }
        let id = format!("watch-{}", self.next.fetch_add(1, Ordering::SeqCst) + 1);
        let watch = Arc::new(Watch {
            id: id.clone(),
            job,
            ended: AtomicBool::new(false),
            cancel: Cancel::default(),
            running: AtomicBool::new(false),
            runs: AtomicU64::new(1),
            last: Mutex::new(first.clone()),
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
            watcher: Mutex::new(None),
        });
        let watcher = watch_tree(root, Arc::downgrade(&watch)).map_err(|e| {
            CommandError::new(
                ErrorCode::IoError,
                format!("cannot watch the workspace: {e}"),
            )
            .with_suggestion("run run_tests again after changes instead; raise fs.inotify.max_user_watches if the tree is very large")
        })?;
        *watch.watcher.lock().unwrap_or_else(|p| p.into_inner()) = Some(watcher);
        let root = root.to_path_buf();
        let w = watch.clone();
        std::thread::Builder::new()
            .name(format!("ultra-{id}"))
            .spawn(move || run_loop(&w, &root, &events))
            .map_err(|e| {
                CommandError::new(ErrorCode::IoError, format!("cannot start the watch: {e}"))
            })?;
        all.insert(id.clone(), watch);
        Ok(id)
    }

    /// The watches, oldest first.
    pub fn list(&self) -> Vec<WatchInfo> {
        let all = self.watches.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<WatchInfo> = all.values().map(|w| w.info()).collect();
        out.sort_by_key(|w| {
            w.id.trim_start_matches("watch-")
                .parse::<u64>()
                .unwrap_or(0)
        });
        out
    }

    /// Stop a watch; false if there is none by that id.
    pub fn stop(&self, id: &str) -> bool {
        let removed = self
            .watches
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        removed.map(|w| w.end()).is_some()
    }

    /// Stop every watch `session` started (its connection ended).
    pub fn end_session(&self, session: &str) {
        let mut all = self.watches.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|_, w| {
            let mine = w.job.source.session_id.as_deref() == Some(session);
            if mine {
                w.end();
            }
            !mine
        });
    }
}

impl Drop for TestWatches {
    fn drop(&mut self) {
        let all = self.watches.get_mut().unwrap_or_else(|p| p.into_inner());
        for w in all.values() {
            w.end();
        }
    }
}

/// A recursive watcher on `root` that hands relevant changes to `watch`.
fn watch_tree(
    root: &Path,
    watch: std::sync::Weak<Watch>,
) -> Result<notify::RecommendedWatcher, notify::Error> {
    use notify::Watcher;
    let filter = Filter::new(root);
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let Some(w) = watch.upgrade() else { return };
        let Ok(ev) = res else { return };
        if matches!(ev.kind, notify::EventKind::Access(_)) {
            return;
        }
        let paths: Vec<String> = ev.paths.iter().filter_map(|p| filter.relevant(p)).collect();
        if paths.is_empty() {
            return;
        }
        let mut p = w.pending.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        p.first.get_or_insert(now);
        p.last = Some(now);
        for path in paths {
            if p.paths.len() < 10_000 {
                p.paths.insert(path);
            }
        }
        w.wake.notify_all();
    })?;
    watcher.watch(root, notify::RecursiveMode::Recursive)?;
    Ok(watcher)
}

/// Wait for a burst of changes to settle; `None` once the watch has ended.
fn next_changes(w: &Watch) -> Option<Vec<String>> {
    let mut p = w.pending.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if w.ended.load(Ordering::SeqCst) {
            return None;
        }
        match (p.first, p.last) {
            (Some(first), Some(last)) => {
                let now = Instant::now();
                let quiet_at = last + QUIET;
                let cap_at = first + MAX_GATHER;
                if now >= quiet_at || now >= cap_at {
                    let taken = std::mem::take(&mut *p);
                    return Some(taken.paths.into_iter().collect());
                }
                let until = quiet_at.min(cap_at);
                p = w
                    .wake
                    .wait_timeout(p, until - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            _ => {
                p = w
                    .wake
                    .wait_timeout(p, Duration::from_secs(1))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
    }
}

fn run_loop(w: &Watch, root: &Path, events: &EventBus) {
    while let Some(changed) = next_changes(w) {
        let named: Vec<&String> = changed.iter().take(MAX_NAMED).collect();
        events.emit(
            "tests.started",
            json!({
                "watchId": w.id, "runner": w.job.runner, "command": w.job.command,
                "changed": named, "changedCount": changed.len(),
            }),
            Some(&w.job.source),
        );
        w.running.store(true, Ordering::SeqCst);
        let ran = run_once(
            root,
            w.job.runner,
            &w.job.command,
            w.job.timeout,
            w.job.cap,
            Some(&w.cancel),
            w.job.sandbox.as_ref(),
        );
        w.running.store(false, Ordering::SeqCst);
        if w.ended.load(Ordering::SeqCst) {
            return;
        }
        let body = match ran {
            Ok(r) => {
                w.runs.fetch_add(1, Ordering::SeqCst);
                let start = r.output.len().saturating_sub(EVENT_OUTPUT);
                let start = (start..r.output.len())
                    .find(|i| r.output.is_char_boundary(*i))
                    .unwrap_or(r.output.len());
                let body = json!({
                    "watchId": w.id, "passed": r.passed, "exitCode": r.exit_code,
                    "stats": r.stats, "duration": r.duration, "timedOut": r.timed_out,
                    "output": &r.output[start..], "changed": named,
                });
                *w.last.lock().unwrap_or_else(|p| p.into_inner()) = r;
                body
            }
            Err(e) => json!({ "watchId": w.id, "passed": false, "error": e, "changed": named }),
        };
        events.emit("tests.finished", body, Some(&w.job.source));
    }
}

/// A watch as listed.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchInfo {
    pub id: String,
    pub runner: Runner,
    pub command: Vec<String>,
    /// Runs so far, the first one included.
    pub runs: u64,
    /// A run is in progress.
    pub running: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The latest finished run.
    pub last: TestRun,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_source_changes_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "*.log\n/out/\n").expect("write");
        let f = Filter::new(root);
        let rel = |p: &str| f.relevant(&root.join(p));
        assert_eq!(rel("src/lib.rs").as_deref(), Some("src/lib.rs"));
        assert_eq!(rel("tests/a.test.ts").as_deref(), Some("tests/a.test.ts"));
        for skipped in [
            "target/debug/x.rs",
            "node_modules/a/index.js",
            ".git/index",
            "pkg/__pycache__/m.pyc",
            "src/.lib.rs.ultra-tmp.1.2",
            "run.log",
            "out/report.txt",
            "src/lib.rs~",
        ] {
            assert_eq!(rel(skipped), None, "{skipped}");
        }
        assert_eq!(f.relevant(Path::new("/elsewhere/a.rs")), None);
        // An ignore file below the top counts too, and a new one is read when it appears.
        std::fs::create_dir_all(root.join("pkg/gen")).expect("mkdir");
        assert_eq!(rel("pkg/gen/a.rs").as_deref(), Some("pkg/gen/a.rs"));
        std::fs::write(root.join("pkg/.gitignore"), "gen/\n").expect("write");
        assert_eq!(rel("pkg/.gitignore").as_deref(), Some("pkg/.gitignore"));
        assert_eq!(rel("pkg/gen/a.rs"), None);
        assert_eq!(rel("pkg/src/a.rs").as_deref(), Some("pkg/src/a.rs"));
    }
}
