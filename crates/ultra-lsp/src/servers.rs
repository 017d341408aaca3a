//! The language servers of one workspace: which one serves a file, started on first need,
//! started again (with backoff) when one dies, documents kept in sync, and a status of each.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::client::{Client, LspError, Published, ServerSpec};

/// One language's server as configured (`lsp.<language>` in `ultra.config.json`); what is
/// not given comes from the default for the language.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    pub command: Option<String>,
    pub args: Option<Vec<String>>,
    pub initialization_options: Option<Value>,
    /// `Some(false)` turns the language's server off.
    pub enabled: Option<bool>,
}

/// A default server: its program and arguments.
type Program = (&'static str, &'static [&'static str]);

/// The servers Ultra knows for each language, first found on `PATH` wins.
const DEFAULTS: &[(&str, &[Program])] = &[
    (
        "python",
        &[
            ("pyright-langserver", &["--stdio"]),
            ("basedpyright-langserver", &["--stdio"]),
        ],
    ),
    (
        "typescript",
        &[("typescript-language-server", &["--stdio"])],
    ),
    ("rust", &[("rust-analyzer", &[])]),
    ("go", &[("gopls", &[])]),
    ("c", &[("clangd", &[])]),
];

/// The server language and the document `languageId` of a file, by its extension.
pub fn language_of(path: &str) -> Option<(&'static str, &'static str)> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "py" | "pyi" => ("python", "python"),
        "ts" | "mts" | "cts" => ("typescript", "typescript"),
        "tsx" => ("typescript", "typescriptreact"),
        "js" | "mjs" | "cjs" => ("typescript", "javascript"),
        "jsx" => ("typescript", "javascriptreact"),
        "rs" => ("rust", "rust"),
        "go" => ("go", "go"),
        "c" | "h" => ("c", "c"),
        "cc" | "cpp" | "cxx" | "hh" | "hpp" | "hxx" => ("c", "cpp"),
        _ => return None,
    })
}

/// Where `command` is: itself when it names a path, else the first match on `PATH`.
fn find(command: &str) -> Option<PathBuf> {
    if command.contains('/') {
        let p = PathBuf::from(command);
        return p.is_file().then_some(p);
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join(command))
            .find(|p| p.is_file())
    })
}

/// How a language's server is doing, for `lsp.status` and answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Turned off in the configuration.
    Disabled,
    /// No server configured, and none of the defaults is on `PATH`.
    NotFound,
    /// Found, not started yet (it starts on first need).
    Idle,
    /// Being started.
    Starting,
    Running,
    /// It failed to start or died; the next start waits until the backoff has passed.
    Failed,
}

impl State {
    /// The wire name.
    pub fn name(&self) -> &'static str {
        match self {
            State::Disabled => "disabled",
            State::NotFound => "not-found",
            State::Idle => "idle",
            State::Starting => "starting",
            State::Running => "running",
            State::Failed => "failed",
        }
    }
}

/// One language's server as `lsp.status` shows it.
#[derive(Debug, Clone)]
pub struct Status {
    pub language: String,
    pub state: State,
    /// The command that runs (or would run), with its arguments.
    pub command: Option<Vec<String>>,
    pub pid: Option<u32>,
    /// The position encoding it chose.
    pub encoding: Option<&'static str>,
    /// How many times it was started again after dying.
    pub restarts: u32,
    /// Why it last failed (with its last stderr).
    pub last_error: Option<String>,
    /// Documents it has open.
    pub open_documents: usize,
    /// What it reported it is busy with (`$/progress` titles: "Indexing", ...).
    pub working: Vec<String>,
}

/// Backoff after a failed start or a death: doubles up to this.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
const FIRST_BACKOFF: Duration = Duration::from_millis(500);

/// How long a server that never published for a file is waited for, after the first time.
const SILENT_WAIT: Duration = Duration::from_millis(500);

/// Publications for one document this close together are one burst: the last counts.
const SETTLE: Duration = Duration::from_millis(150);

#[derive(Default)]
struct Slot {
    client: Option<Arc<Client>>,
    /// Open documents by path: the hash of the text the server has, its version, and the
    /// client's publication count when it was sent (what was published before is not for
    /// it, which a server that gives no versions does not say).
    open: HashMap<PathBuf, (blake3::Hash, i64, u64)>,
    /// A caller is starting the server (outside the lock).
    starting: bool,
    starts: u32,
    failures: u32,
    not_before: Option<Instant>,
    last_error: Option<String>,
    /// When a caller last got the client (for [`Servers::stop_idle`]).
    used: Option<Instant>,
}

/// The language servers of the workspace at `root`.
pub struct Servers {
    root: PathBuf,
    specs: BTreeMap<&'static str, Result<ServerSpec, State>>,
    slots: Mutex<HashMap<&'static str, Slot>>,
    /// Signalled when a start ends, for callers waiting on it.
    started: Condvar,
    /// Told of every publication, with the language (see [`Servers::on_publish`]).
    on_publish: Mutex<Option<PublishHook>>,
    /// Files a server was given the full wait for and never published for.
    silent: Mutex<std::collections::HashSet<PathBuf>>,
}

/// A document as [`Servers::document`] left it.
pub struct Document {
    pub client: Arc<Client>,
    /// The client's publication count when the text was sent.
    pub before: u64,
    /// The document's version: `Ok` when the text was just sent, `Err` when the server had
    /// it already.
    pub version: Result<i64, i64>,
}

/// What [`Servers::on_publish`] calls: the language, the document's path, what was published.
pub type PublishHook = Arc<dyn Fn(&str, &Path, &Published) + Send + Sync>;

impl Servers {
    /// The servers for `root`: for each language its configured server, else the first
    /// default on `PATH`. Nothing starts until it is needed.
    pub fn new(root: &Path, config: &BTreeMap<String, ServerConfig>) -> Servers {
        let mut specs = BTreeMap::new();
        for (language, defaults) in DEFAULTS {
            let cfg = config.get(*language).cloned().unwrap_or_default();
            let spec = if cfg.enabled == Some(false) {
                Err(State::Disabled)
            } else if let Some(command) = &cfg.command {
                Ok(ServerSpec {
                    language: language.to_string(),
                    command: command.clone(),
                    args: cfg.args.clone().unwrap_or_default(),
                    initialization_options: cfg.initialization_options.clone(),
                })
            } else {
                defaults
                    .iter()
                    .find_map(|(cmd, args)| {
                        find(cmd).map(|p| ServerSpec {
                            language: language.to_string(),
                            command: p.to_string_lossy().into(),
                            args: cfg
                                .args
                                .clone()
                                .unwrap_or_else(|| args.iter().map(|a| a.to_string()).collect()),
                            initialization_options: cfg.initialization_options.clone(),
                        })
                    })
                    .ok_or(State::NotFound)
            };
            specs.insert(*language, spec);
        }
        Servers {
            root: root.to_path_buf(),
            specs,
            slots: Mutex::new(HashMap::new()),
            started: Condvar::new(),
            on_publish: Mutex::new(None),
            silent: Mutex::new(std::collections::HashSet::new()),
        }
    }

    /// The running client for `language`, started now if need be. A server that died is
    /// started again, unless it failed so recently that its backoff has not passed.
    pub fn client(&self, language: &str) -> Result<Arc<Client>, LspError> {
        self.client_by(language, None)
    }

    /// [`Servers::client`], waiting for another caller's start of it until `deadline` at
    /// most ([`LspError::Starting`] then).
    fn client_by(
        &self,
        language: &str,
        deadline: Option<Instant>,
    ) -> Result<Arc<Client>, LspError> {
        let Some((&language, spec)) = self.specs.get_key_value(language) else {
            return Err(LspError::Unavailable {
                language: language.to_string(),
                reason: "no language server is known for it".into(),
            });
        };
        let spec = spec.as_ref().map_err(|state| LspError::Unavailable {
            language: language.to_string(),
            reason: match state {
                State::Disabled => {
                    "its language server is turned off (lsp.<language>.enabled)".into()
                }
                _ => format!(
                    "no language server found on PATH ({}); configure lsp.{language}.command",
                    DEFAULTS
                        .iter()
                        .find(|(l, _)| *l == language)
                        .map(|(_, d)| d.iter().map(|(c, _)| *c).collect::<Vec<_>>().join(", "))
                        .unwrap_or_default()
                ),
            },
        })?;
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let slot = slots.entry(language).or_default();
            if let Some(c) = slot.client.take() {
                if c.alive() {
                    slot.client = Some(c.clone());
                    slot.used = Some(Instant::now());
                    return Ok(c);
                }
                // Died: what it had open is gone with it.
                slot.open.clear();
                slot.failures += 1;
                slot.last_error = Some(format!("it exited: {}", c.stderr_tail().trim()));
                slot.not_before = Some(Instant::now() + backoff(slot.failures));
            }
            // Another caller is starting it: wait for that start.
            if slot.starting {
                let Some(deadline) = deadline else {
                    slots = self.started.wait(slots).unwrap_or_else(|p| p.into_inner());
                    continue;
                };
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(LspError::Starting {
                        language: language.to_string(),
                    });
                }
                slots = self
                    .started
                    .wait_timeout(slots, left)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
                continue;
            }
            if let Some(t) = slot.not_before
                && Instant::now() < t
            {
                return Err(LspError::Unavailable {
                    language: language.to_string(),
                    reason: format!(
                        "its language server failed ({}); it is started again in {} ms",
                        slot.last_error.as_deref().unwrap_or("no reason given"),
                        (t - Instant::now()).as_millis()
                    ),
                });
            }
            slot.starting = true;
            break;
        }
        // Starting takes a moment (up to a minute for `initialize`): other languages, and
        // the status, do not wait for it.
        drop(slots);
        let hook = self
            .on_publish
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .map(|f| {
                let on: crate::client::OnPublish = Arc::new(move |uri: &str, p: &Published| {
                    if let Some(path) = crate::uri::to_path(uri) {
                        f(language, &path, p);
                    }
                });
                on
            });
        let started = Client::start_with(spec, &self.root, hook);
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        let slot = slots.entry(language).or_default();
        slot.starting = false;
        self.started.notify_all();
        match started {
            Ok(c) => {
                let c = Arc::new(c);
                slot.client = Some(c.clone());
                slot.starts += 1;
                slot.used = Some(Instant::now());
                slot.not_before = None;
                Ok(c)
            }
            Err(e) => {
                slot.failures += 1;
                slot.last_error = Some(e.to_string());
                slot.not_before = Some(Instant::now() + backoff(slot.failures));
                Err(e)
            }
        }
    }

    /// Give the server of `path` (absolute) its current `text` (opening the document or
    /// replacing its text when it changed) and wait, `wait` at most, for the diagnostics it
    /// publishes for that text. `Ok(None)`: the server did not publish in time.
    pub fn diagnostics(
        &self,
        path: &Path,
        text: &str,
        wait: Duration,
    ) -> Result<(Arc<Client>, Option<Published>), LspError> {
        self.published_for(path, text, wait, true)
    }

    /// [`Servers::diagnostics`] for one of several files changed together: a server
    /// publishes again for a file when another it depends on changes, with the same
    /// version, so only a quiet moment says it is done.
    pub fn settled_diagnostics(
        &self,
        path: &Path,
        text: &str,
        wait: Duration,
    ) -> Result<(Arc<Client>, Option<Published>), LspError> {
        self.published_for(path, text, wait, false)
    }

    /// `exact`: a publication for exactly the version sent is the last word.
    fn published_for(
        &self,
        path: &Path,
        text: &str,
        wait: Duration,
        exact: bool,
    ) -> Result<(Arc<Client>, Option<Published>), LspError> {
        let deadline = Instant::now() + wait;
        let Document {
            client,
            before,
            version,
        } = self.document(path, text, wait)?;
        // Unchanged since the server was given it, or just sent: what it published since.
        let (Ok(v) | Err(v)) = version;
        if crate::tsserver::serves(client.capabilities()) {
            let left = deadline.saturating_duration_since(Instant::now());
            let asked = crate::tsserver::pull(&client, path, v, left);
            return Ok((client, asked));
        }
        // A server that never published for this file, though given the time, likely never
        // will (a file outside its project): it is not waited for in full again.
        let silent = {
            let mut silent = self.silent.lock().unwrap_or_else(|p| p.into_inner());
            if client.diagnostics(path).is_some() {
                silent.remove(path);
            }
            silent.contains(path)
        };
        let first = if silent { wait.min(SILENT_WAIT) } else { wait };
        let mut got = client.wait_diagnostics(path, before, Some(v), first);
        if got.is_none() && client.diagnostics(path).is_none() && first == wait {
            self.silent
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(path.to_path_buf());
        }
        // Settled: a server that gives no versions may publish in parts, and one that does
        // publishes again for a file another in the batch changed; the last of a burst
        // counts. (typescript-language-server, the one that publishes in parts, is asked
        // above instead.)
        while let Some(p) = &got {
            if exact && p.version == Some(v) {
                break;
            }
            let quiet = SETTLE.saturating_sub(p.at.elapsed());
            let left = deadline
                .saturating_duration_since(Instant::now())
                .min(quiet);
            if left.is_zero() {
                break;
            }
            match client.wait_diagnostics(path, p.generation, Some(v), left) {
                Some(later) => got = Some(later),
                None => break,
            }
        }
        Ok((client, got))
    }

    /// The server of `path` (absolute), started if need be (another caller's start is
    /// waited for `wait` at most), holding `text` as the document: opened, or changed when
    /// its text differs.
    pub fn document(&self, path: &Path, text: &str, wait: Duration) -> Result<Document, LspError> {
        let name = path.to_string_lossy();
        let Some((language, language_id)) = language_of(&name) else {
            return Err(LspError::Unavailable {
                language: "unknown".into(),
                reason: format!("no language server serves {name}"),
            });
        };
        let client = self.client_by(language, Some(Instant::now() + wait))?;
        let hash = blake3::hash(text.as_bytes());
        let now = client.generation();
        let (version, before) = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            let slot = slots.entry(language).or_default();
            match slot.open.get(path) {
                Some(&(h, v, sent)) if h == hash => (Err(v), sent),
                Some(_) => {
                    let v = client.change(path, text)?;
                    slot.open.insert(path.to_path_buf(), (hash, v, now));
                    (Ok(v), now)
                }
                None => {
                    client.open(path, language_id, text)?;
                    slot.open.insert(path.to_path_buf(), (hash, 1, now));
                    (Ok(1), now)
                }
            }
        };
        Ok(Document {
            client,
            before,
            version,
        })
    }

    /// Give the server of `path` its current `text` without waiting for anything (after
    /// a refused edit was shown to it, say). Nothing happens when no server runs for it or
    /// it already has this text.
    pub fn sync(&self, path: &Path, text: &str) {
        let Some((language, _)) = language_of(&path.to_string_lossy()) else {
            return;
        };
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        let Some(slot) = slots.get_mut(language) else {
            return;
        };
        let Some(client) = slot.client.clone() else {
            return;
        };
        let hash = blake3::hash(text.as_bytes());
        let now = client.generation();
        if let Some(open) = slot.open.get_mut(path)
            && open.0 != hash
            && let Ok(v) = client.change(path, text)
        {
            *open = (hash, v, now);
        }
    }

    /// `path` (absolute) was saved: its server hears of it (`textDocument/didSave`) if it
    /// has the document open and asked to hear of saves.
    pub fn saved(&self, path: &Path) {
        let Some((language, _)) = language_of(&path.to_string_lossy()) else {
            return;
        };
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        let Some(slot) = slots.get(language) else {
            return;
        };
        if let Some(client) = slot.client.as_ref().filter(|c| c.alive())
            && slot.open.contains_key(path)
            && client.wants_saves()
        {
            let _ = client.notify(
                "textDocument/didSave",
                json!({ "textDocument": { "uri": crate::uri::from_path(path) } }),
            );
        }
    }

    /// Files changed on disk (absolute paths; LSP `FileChangeType`: 1 created, 2 changed,
    /// 3 deleted): every running server hears of them (`workspace/didChangeWatchedFiles`).
    /// A server of their language also has its documents closed: what it published for
    /// them may rest on the old files, and it may not publish again when nothing it says
    /// changed, so the next question opens them afresh and waits for a new word.
    pub fn files_changed(&self, changes: &[(PathBuf, u8)]) {
        if changes.is_empty() {
            return;
        }
        let params = json!({
            "changes": changes
                .iter()
                .map(|(p, kind)| json!({ "uri": crate::uri::from_path(p), "type": kind }))
                .collect::<Vec<_>>()
        });
        let languages: std::collections::HashSet<&str> = changes
            .iter()
            .filter_map(|(p, _)| language_of(&p.to_string_lossy()).map(|l| l.0))
            .collect();
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        for (language, slot) in slots.iter_mut() {
            let Some(client) = slot.client.clone().filter(|c| c.alive()) else {
                continue;
            };
            let _ = client.notify("workspace/didChangeWatchedFiles", params.clone());
            if languages.contains(language) {
                for (p, _) in slot.open.drain() {
                    let _ = client.close(&p);
                }
            }
        }
    }

    /// What every running server last published, for every document it published for:
    /// (language, path, the server's position encoding, the diagnostics).
    pub fn published(&self) -> Vec<(&'static str, PathBuf, crate::PositionEncoding, Published)> {
        let clients: Vec<(&'static str, Arc<Client>)> = {
            let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots
                .iter()
                .filter_map(|(l, s)| Some((*l, s.client.clone().filter(|c| c.alive())?)))
                .collect()
        };
        clients
            .into_iter()
            .flat_map(|(language, c)| {
                let enc = c.encoding();
                c.all_diagnostics()
                    .into_iter()
                    .map(move |(path, p)| (language, path, enc, p))
            })
            .collect()
    }

    /// Stop the servers nobody has asked anything for `idle`; the next question starts
    /// one again. Returns how many stopped.
    pub fn stop_idle(&self, idle: Duration) -> usize {
        let stopped: Vec<Arc<Client>> = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots
                .values_mut()
                .filter(|s| s.client.is_some() && s.used.is_some_and(|t| t.elapsed() >= idle))
                .filter_map(|s| {
                    s.open.clear();
                    // Its next start is not a restart after a death.
                    s.starts = s.starts.saturating_sub(1);
                    s.client.take()
                })
                .collect()
        };
        // Shut down (politely, then killed) outside the lock.
        let n = stopped.len();
        drop(stopped);
        n
    }

    /// Call `f` whenever a server started from now on publishes diagnostics (for
    /// `diagnostics.changed` events). It runs on the thread that reads the server and must
    /// not block.
    pub fn on_publish(&self, f: PublishHook) {
        *self.on_publish.lock().unwrap_or_else(|p| p.into_inner()) = Some(f);
    }

    /// Every language's server.
    pub fn status(&self) -> Vec<Status> {
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        self.specs
            .iter()
            .map(|(language, spec)| {
                let slot = slots.get(language);
                let client = slot.and_then(|s| s.client.as_ref());
                let running = client.is_some_and(|c| c.alive());
                let state = match spec {
                    Err(s) => s.clone(),
                    Ok(_) if running => State::Running,
                    Ok(_) if slot.is_some_and(|s| s.starting) => State::Starting,
                    Ok(_) if slot.is_some_and(|s| s.failures > 0) => State::Failed,
                    Ok(_) => State::Idle,
                };
                Status {
                    language: language.to_string(),
                    state,
                    command: spec.as_ref().ok().map(|s| {
                        std::iter::once(s.command.clone())
                            .chain(s.args.iter().cloned())
                            .collect()
                    }),
                    pid: client.filter(|_| running).map(|c| c.pid()),
                    encoding: client.filter(|_| running).map(|c| c.encoding().name()),
                    restarts: slot.map_or(0, |s| s.starts.saturating_sub(1)),
                    last_error: slot.and_then(|s| s.last_error.clone()),
                    open_documents: slot.map_or(0, |s| s.open.len()),
                    working: client
                        .filter(|_| running)
                        .map(|c| c.working())
                        .unwrap_or_default(),
                }
            })
            .collect()
    }
}

fn backoff(failures: u32) -> Duration {
    FIRST_BACKOFF
        .saturating_mul(1 << failures.saturating_sub(1).min(10))
        .min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_backoff_and_missing_servers() {
        assert_eq!(language_of("a/b.py"), Some(("python", "python")));
        assert_eq!(
            language_of("x.tsx"),
            Some(("typescript", "typescriptreact"))
        );
        assert_eq!(language_of("x.hpp"), Some(("c", "cpp")));
        assert_eq!(language_of("README"), None);
        assert_eq!(backoff(1), FIRST_BACKOFF);
        assert_eq!(backoff(2), FIRST_BACKOFF * 2);
        assert_eq!(backoff(30), MAX_BACKOFF);

        let mut cfg = BTreeMap::new();
        cfg.insert(
            "python".to_string(),
            ServerConfig {
                command: Some("/nonexistent/ultra-no-such-server".into()),
                ..ServerConfig::default()
            },
        );
        cfg.insert(
            "go".to_string(),
            ServerConfig {
                enabled: Some(false),
                ..ServerConfig::default()
            },
        );
        let s = Servers::new(Path::new("/tmp"), &cfg);
        // Configured but missing: it fails to start, then waits out its backoff.
        let e = s.client("python").err().expect("no such server");
        assert!(e.to_string().contains("ultra-no-such-server"), "{e}");
        let e = s.client("python").err().expect("backing off");
        assert!(e.to_string().contains("started again in"), "{e}");
        let e = s.client("go").err().expect("disabled");
        assert!(e.to_string().contains("turned off"), "{e}");
        let st = s.status();
        let py = st.iter().find(|x| x.language == "python").expect("python");
        assert_eq!(py.state, State::Failed);
        assert!(py.last_error.is_some());
        let go = st.iter().find(|x| x.language == "go").expect("go");
        assert_eq!(go.state, State::Disabled);
    }

    #[test]
    fn a_slow_start_holds_up_nobody_else() {
        let mut cfg = BTreeMap::new();
        cfg.insert(
            "python".to_string(),
            ServerConfig {
                command: Some("sh".into()),
                args: Some(vec!["-c".into(), "sleep 2".into()]),
                ..ServerConfig::default()
            },
        );
        let s = Arc::new(Servers::new(Path::new("/tmp"), &cfg));
        let starting = {
            let s = s.clone();
            std::thread::spawn(move || s.client("python").err().map(|e| e.to_string()))
        };
        let t = Instant::now();
        while !s
            .status()
            .iter()
            .any(|x| x.language == "python" && x.state == State::Starting)
        {
            assert!(t.elapsed() < Duration::from_secs(1), "{:?}", s.status());
            std::thread::sleep(Duration::from_millis(10));
        }
        // While it starts: the status and other languages answer at once.
        let t = Instant::now();
        let _ = s.status();
        let _ = s.client("go");
        assert!(
            t.elapsed() < Duration::from_millis(500),
            "{:?}",
            t.elapsed()
        );
        let e = starting.join().expect("the start returns");
        assert!(e.is_some_and(|e| e.contains("exited")));
    }
}
