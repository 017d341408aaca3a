//! The services a command reaches through `Cx::services` ([`Services`]: the workspace, the code
//! index, terminals, the shell, UI and view state), and the helpers every command shares
//! ([`util`]: who is calling, notices, saving, output caps).

pub mod search;
pub mod ui;
pub mod util;
pub mod view;

pub use ultra_indexer::TextState;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use ultra_core::validator::FileReader;
use ultra_core::{Config, Host};
use ultra_workspace::root::RootOptions;
use ultra_workspace::workspace::WorkspaceOptions;
use ultra_workspace::{Workspace, WsError};

/// Ultra's per-workspace state directory: `$XDG_STATE_HOME/ultra/<root-hash>/`, else under
/// `~/.local/state`, else the temp dir. It holds the audit log and the code index store.
pub fn state_dir(root: &Path) -> std::path::PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    let hash = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
    base.join("ultra").join(&hash[..16])
}

/// How the executor will be used, beyond the config.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mode {
    /// One process, one run (`ultra -c` with no server): undo history ends with it.
    pub one_shot: bool,
    /// Write nothing: the workspace's file layer refuses every change (`--dry-run`).
    pub dry_run: bool,
}

thread_local! {
    /// How many workspace guards this thread holds.
    static HOLDING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The locked workspace.
pub struct WsGuard<'a>(MutexGuard<'a, Workspace>);

impl Drop for WsGuard<'_> {
    fn drop(&mut self) {
        HOLDING.with(|h| h.set(h.get().saturating_sub(1)));
    }
}

impl std::ops::Deref for WsGuard<'_> {
    type Target = Workspace;
    fn deref(&self) -> &Workspace {
        &self.0
    }
}

impl std::ops::DerefMut for WsGuard<'_> {
    fn deref_mut(&mut self) -> &mut Workspace {
        &mut self.0
    }
}

/// Everything a built-in command may use.
pub struct Services {
    root: PathBuf,
    workspace: Arc<Mutex<Workspace>>,
    /// A second handle on the root for the shell, whose pipelines run on their own threads
    /// without holding the workspace lock.
    shell_root: Arc<ultra_workspace::Root>,
    /// Shell sessions (variables, working directory, `$?`) by session id.
    shell_sessions: Mutex<std::collections::HashMap<String, ultra_shell::run::Env>>,
    /// The code index (seed 001).
    code: Arc<ultra_indexer::CodeIndex>,
    /// The trigram index of the files searches read (built by [`Services::warm_up`]).
    text: Arc<ultra_indexer::TextIndex>,
    /// Language servers, started on first need (issue 22).
    lsp: Arc<ultra_lsp::Servers>,
    /// Terminals (seed 003).
    terminals: ultra_term::Terminals,
    /// `run_tests` watches running in the background.
    test_watches: ultra_runner::TestWatches,
    /// The agent-driven UI (seed 002).
    ui: ui::UiService,
    /// What the editor shows (seed 000's view commands) and buffers' highlighting.
    view: view::ViewService,
    /// Key bindings, set once the registry is built.
    keymap: std::sync::OnceLock<ultra_core::keymap::Keymap>,
    /// The loaded configuration.
    pub config: Config,
    mode: Mode,
}

/// Where the code index persists, from config `index`.
fn store_at(root: &Path, cfg: &ultra_core::config::IndexConfig) -> ultra_indexer::StoreAt {
    use ultra_core::config::IndexBackend;
    match cfg.backend {
        IndexBackend::Redb => ultra_indexer::StoreAt::Redb(state_dir(root).join("index.redb")),
        IndexBackend::None => ultra_indexer::StoreAt::Nowhere,
        IndexBackend::Redis => {
            let hash = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
            ultra_indexer::StoreAt::Redis {
                url: cfg
                    .redis_url
                    .clone()
                    .unwrap_or_else(|| "redis://127.0.0.1:6379/".to_string()),
                namespace: cfg
                    .namespace
                    .clone()
                    .unwrap_or_else(|| format!("ultra:index:{}", &hash[..16])),
            }
        }
    }
}

/// A language server nobody asked anything for this long is stopped (it starts again on
/// the next question): an agent session that moved on leaves no server holding memory.
const LSP_IDLE: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// Stop idle language servers now and then, for as long as `lsp` lives.
fn stop_idle_servers(lsp: std::sync::Weak<ultra_lsp::Servers>) {
    let _ = std::thread::Builder::new()
        .name("lsp-idle".into())
        .spawn(move || {
            loop {
                std::thread::sleep(std::time::Duration::from_secs(60));
                let Some(lsp) = lsp.upgrade() else {
                    return;
                };
                lsp.stop_idle(LSP_IDLE);
            }
        });
}

/// `lsp` of the configuration, as the language servers take it.
fn lsp_config(config: &Config) -> std::collections::BTreeMap<String, ultra_lsp::ServerConfig> {
    config
        .lsp
        .iter()
        .map(|(language, c)| {
            let c = ultra_lsp::ServerConfig {
                command: c.command.clone(),
                args: c.args.clone(),
                initialization_options: c.initialization_options.clone(),
                enabled: c.enabled,
            };
            (language.clone(), c)
        })
        .collect()
}

impl Services {
    /// Open the workspace at `root`.
    pub fn open(root: &Path, config: &Config, mode: Mode) -> Result<Services, WsError> {
        let opts = WorkspaceOptions {
            root: RootOptions {
                restricted: config.security.restricted_paths.clone(),
                hardlink_reads: config.security.allow_hardlink_reads.clone(),
                dry_run: mode.dry_run,
                ..RootOptions::default()
            },
            journal_dir: (!mode.dry_run).then(|| state_dir(root).join("journal")),
        };
        let shell_root = Arc::new(ultra_workspace::Root::open(root, opts.root.clone())?);
        let ws = Workspace::open(root, opts)?;
        let services = Services {
            code: Arc::new(ultra_indexer::CodeIndex::new(
                ws.root().path().to_path_buf(),
                store_at(ws.root().path(), &config.index),
                ultra_index::build::Exclude::new(ws.root().path(), &config.index.exclude),
            )),
            text: Arc::new(ultra_indexer::TextIndex::new(
                ws.root().path().to_path_buf(),
                (!mode.dry_run).then(|| state_dir(root).join("text-index")),
            )),
            lsp: Arc::new(ultra_lsp::Servers::new(
                ws.root().path(),
                &lsp_config(config),
            )),
            root: ws.root().path().to_path_buf(),
            workspace: Arc::new(Mutex::new(ws)),
            shell_root,
            shell_sessions: Mutex::new(std::collections::HashMap::new()),
            terminals: ultra_term::Terminals::default(),
            test_watches: Default::default(),
            ui: ui::UiService::new(state_dir(root)),
            view: Default::default(),
            keymap: std::sync::OnceLock::new(),
            config: config.clone(),
            mode,
        };
        services.forward_disk_changes();
        stop_idle_servers(Arc::downgrade(&services.lsp));
        Ok(services)
    }

    /// The workspace's language servers.
    pub fn lsp(&self) -> &Arc<ultra_lsp::Servers> {
        &self.lsp
    }

    /// Tell the language servers of files the code index finds changed on disk (a save, a
    /// `git checkout`, another process): called once, at open.
    fn forward_disk_changes(&self) {
        let (lsp, root) = (self.lsp.clone(), self.root.clone());
        self.code.on_change(Arc::new(move |changes| {
            use ultra_indexer::Change;
            let changes: Vec<(PathBuf, u8)> = changes
                .iter()
                .map(|(p, how)| {
                    let kind = match how {
                        Change::Created => 1,
                        Change::Changed => 2,
                        Change::Deleted => 3,
                    };
                    (root.join(p), kind)
                })
                .collect();
            lsp.files_changed(&changes);
        }));
    }

    /// Announce what language servers publish on `events` (`diagnostics.changed`), for
    /// servers started from now on (`ultra serve` and `ultra mcp` call it at start).
    pub fn announce_diagnostics(&self, events: ultra_core::events::EventBus) {
        let root = self.root.clone();
        self.lsp
            .on_publish(Arc::new(move |language, path, published| {
                let Some(rel) = path.strip_prefix(&root).ok().and_then(|p| p.to_str()) else {
                    return;
                };
                let count = |sev: u64| {
                    published
                        .diagnostics
                        .iter()
                        .filter(|d| d["severity"].as_u64().unwrap_or(1) == sev)
                        .count()
                };
                events.emit(
                    ultra_protocol::event::names::DIAGNOSTICS_CHANGED,
                    serde_json::json!({
                        "path": rel,
                        "uri": util::file_uri(&root, rel),
                        "language": language,
                        "errors": count(1),
                        "warnings": count(2),
                        "total": published.diagnostics.len(),
                    }),
                    None,
                );
            }));
    }

    /// How this executor is used (one-shot, dry run).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The code index, brought up to date with the disk and the open buffers first (`first`
    /// are indexed before the rest). Call without holding the workspace lock.
    pub fn code(&self, first: &[String]) -> (&ultra_indexer::CodeIndex, ultra_indexer::IndexState) {
        let state = self.code.refresh(&self.shell_root, &self.workspace, first);
        (&self.code, state)
    }

    /// `grep code` for the shell: a search over this workspace's index that refreshes it
    /// first, usable from pipeline threads.
    pub fn code_search(&self) -> Arc<dyn ultra_shell::run::fs::CodeSearch> {
        Arc::new(search::Search {
            code: self.code.clone(),
            root: self.shell_root.clone(),
            workspace: self.workspace.clone(),
        })
    }

    /// The text index for the shell's `grep -r` and the `grep` tool, usable from pipeline
    /// threads.
    pub fn text_search(&self) -> Arc<dyn ultra_shell::run::fs::TextIndex> {
        Arc::new(search::Text {
            text: self.text.clone(),
            root: self.shell_root.clone(),
        })
    }

    /// Watch the workspace for the code and text indexes, so refreshes need not walk the
    /// tree; the watchers run until the returned handles are dropped. Without its watcher
    /// the text index is not used (searches scan).
    pub fn watch_index(&self) -> std::io::Result<Vec<ultra_indexer::WatchHandle>> {
        let mut handles = vec![self.code.watch()?];
        handles.extend(self.text.watch().ok());
        Ok(handles)
    }

    /// The text index, to pick the files a search reads.
    pub fn text(&self) -> &ultra_indexer::TextIndex {
        &self.text
    }

    /// Build the index in the background (`ultra serve` does at start), announcing progress
    /// and readiness on `events`; answers meanwhile are marked `warming`, and the files
    /// they ask about are indexed first.
    pub fn warm_up(
        self: &Arc<Self>,
        events: ultra_core::events::EventBus,
    ) -> std::thread::JoinHandle<()> {
        let me = self.clone();
        self.code.begin_warm_up();
        std::thread::spawn(move || {
            // First the text index (a tenth of the code index's time): searches are what
            // agents run most, and they scan until it is built.
            me.text.build(&me.shell_root);
            let start = std::time::Instant::now();
            let mut last = std::time::Instant::now();
            let (_, state) = me.index_now(false, &mut |p| {
                if last.elapsed().as_millis() >= 250 || p.done == p.total {
                    last = std::time::Instant::now();
                    events.emit(
                        ultra_protocol::event::names::INDEX_PROGRESS,
                        serde_json::json!({ "done": p.done, "total": p.total, "bytes": p.bytes }),
                        None,
                    );
                }
            });
            events.emit(
                ultra_protocol::event::names::INDEX_READY,
                serde_json::json!({
                    "files": state.files,
                    "skipped": state.skipped,
                    "seconds": start.elapsed().as_secs_f64(),
                }),
                None,
            );
        })
    }

    /// The state and totals of the last complete index when the tree has not changed since,
    /// found without loading or parsing anything (see [`ultra_indexer::CodeIndex::unchanged`]).
    pub fn index_unchanged(&self) -> Option<(ultra_indexer::IndexState, ultra_indexer::Totals)> {
        self.code.unchanged(&self.shell_root)
    }

    /// Index the workspace now (from scratch when `cold`), reporting progress: `ultra index`.
    pub fn index_now(
        &self,
        cold: bool,
        on_progress: &mut dyn FnMut(ultra_index::build::Progress),
    ) -> (&ultra_indexer::CodeIndex, ultra_indexer::IndexState) {
        if cold {
            self.code.clear();
        }
        let state = self
            .code
            .refresh_with(&self.shell_root, &self.workspace, &[], on_progress);
        (&self.code, state)
    }

    /// The terminals (seed 003).
    pub fn terminals(&self) -> &ultra_term::Terminals {
        &self.terminals
    }

    /// Key bindings (empty until the executor is built).
    pub fn keymap(&self) -> &ultra_core::keymap::Keymap {
        static EMPTY: std::sync::OnceLock<ultra_core::keymap::Keymap> = std::sync::OnceLock::new();
        self.keymap
            .get()
            .unwrap_or_else(|| EMPTY.get_or_init(Default::default))
    }

    /// Set the key bindings (once).
    pub fn set_keymap(&self, keymap: ultra_core::keymap::Keymap) {
        let _ = self.keymap.set(keymap);
    }

    /// The agent-driven UI.
    pub fn ui(&self) -> &ui::UiService {
        &self.ui
    }

    /// The test watches.
    pub fn test_watches(&self) -> &ultra_runner::TestWatches {
        &self.test_watches
    }

    /// The shell's handle on the root.
    pub fn shell_root(&self) -> &Arc<ultra_workspace::Root> {
        &self.shell_root
    }

    /// What the code index leaves out (`index.exclude`), without starting it.
    pub fn index_exclude(&self) -> &ultra_index::build::Exclude {
        self.code.exclude()
    }

    /// Take a shell session's state out (a fresh one if new); put it back with
    /// [`Services::put_shell_session`].
    pub fn take_shell_session(&self, id: &str) -> ultra_shell::run::Env {
        let mut map = self
            .shell_sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        map.remove(id)
            .unwrap_or_else(|| ultra_shell::run::Env::new(&ultra_workspace::RelPath::default()))
    }

    /// Store a shell session's state.
    pub fn put_shell_session(&self, id: &str, env: ultra_shell::run::Env) {
        let mut map = self
            .shell_sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        // Bound the table: sessions are cheap, but ids come from clients.
        if map.len() >= 1024 && !map.contains_key(id) {
            map.clear();
        }
        map.insert(id.to_string(), env);
    }

    /// The canonical workspace root.
    pub fn root_path(&self) -> &Path {
        &self.root
    }

    /// The workspace itself, for work on other threads (shell pipelines) that locks it
    /// briefly per step.
    pub fn workspace_handle(&self) -> Arc<Mutex<Workspace>> {
        self.workspace.clone()
    }

    /// The view (what editors show) and buffers' highlighting.
    pub fn view(&self) -> &view::ViewService {
        &self.view
    }

    /// Lock the workspace. A handler that panicked while holding the lock leaves it
    /// poisoned; the data is still usable, so the poison is ignored.
    pub fn ws(&self) -> WsGuard<'_> {
        let guard = self.workspace.lock().unwrap_or_else(|p| p.into_inner());
        HOLDING.with(|h| h.set(h.get() + 1));
        WsGuard(guard)
    }
}

impl Host for Services {
    fn workspace_root(&self) -> PathBuf {
        self.root.clone()
    }

    fn session_closed(&self, session: &str) {
        self.terminals.end_session(session);
        self.test_watches.end_session(session);
    }

    fn active_file(&self) -> Option<String> {
        self.ws().active().map(|p| p.to_string())
    }

    fn entry_path(&self, user: &str) -> Option<String> {
        // Called by the executor before any handler runs, so this thread holds no guard.
        if HOLDING.with(|h| h.get()) > 0 {
            return None;
        }
        let ws = self.workspace.lock().unwrap_or_else(|p| p.into_inner());
        ws.root()
            .resolve(user, false)
            .ok()
            .map(|rel| rel.as_str().to_string())
    }

    fn file_reader(&self) -> FileReader {
        let ws = self.workspace.clone();
        Arc::new(move |path: &str| {
            // A validator called from a handler on this thread runs under the lock the
            // handler holds; locking again would deadlock.
            if HOLDING.with(|h| h.get()) > 0 {
                return None;
            }
            let mut ws = ws.lock().unwrap_or_else(|p| p.into_inner());
            let rel = ws.resolve_read(path, false).ok()?;
            ws.snapshot(&rel).ok().map(|s| s.rope.to_string())
        })
    }
}
