//! One language server process and the client's side of its conversation: requests with
//! deadlines, the server's own requests answered, documents kept in sync, and what it
//! publishes (diagnostics) kept for whoever asks.

use std::collections::HashMap;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::encoding::PositionEncoding;
use crate::framing::{read_message, write_message};
use crate::uri;

/// How to start a language server.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// The language it serves (`python`, `typescript`, ...), for messages.
    pub language: String,
    pub command: String,
    pub args: Vec<String>,
    /// Sent as `initializationOptions`.
    pub initialization_options: Option<Value>,
}

/// What went wrong talking to a language server.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    #[error("could not start `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("the language server exited{}", tail(.stderr))]
    Exited { stderr: String },
    #[error("the language server did not answer `{method}` within {}", humantime(.after))]
    Timeout { method: String, after: Duration },
    #[error("the language server refused `{method}`: {message} (code {code})")]
    Refused {
        method: String,
        code: i64,
        message: String,
    },
    #[error("no language server for {language}: {reason}")]
    Unavailable { language: String, reason: String },
    /// Another caller is starting it, and the wait for that ran out.
    #[error("the {language} language server is still starting")]
    Starting { language: String },
    #[error("talking to the language server failed: {0}")]
    Io(#[from] std::io::Error),
}

fn tail(stderr: &str) -> String {
    let s = stderr.trim();
    if s.is_empty() {
        String::new()
    } else {
        format!(": {s}")
    }
}

fn humantime(d: &Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// The one `TextDocumentContentChangeEvent` that turns `old` into `new`: the span between
/// their common prefix and common suffix, its range in `enc`.
fn span_change(old: &str, new: &str, enc: PositionEncoding) -> Value {
    let prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let mut start = prefix;
    while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
        start -= 1;
    }
    let most = old.len().min(new.len()) - start;
    let suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(most)
        .take_while(|(a, b)| a == b)
        .count();
    let (mut old_end, mut new_end) = (old.len() - suffix, new.len() - suffix);
    while !old.is_char_boundary(old_end) || !new.is_char_boundary(new_end) {
        old_end += 1;
        new_end += 1;
    }
    let at = |byte: usize| {
        let line_start = old[..byte].rfind('\n').map_or(0, |i| i + 1);
        let line = old[..line_start].matches('\n').count();
        let line_text = old[line_start..].split('\n').next().unwrap_or("");
        json!({ "line": line, "character": enc.column(line_text, byte - line_start) })
    };
    json!({
        "range": { "start": at(start), "end": at(old_end) },
        "text": &new[start..new_end],
    })
}

/// Diagnostics a server published for one document.
#[derive(Debug, Clone)]
pub struct Published {
    /// The document version they are for, when the server says.
    pub version: Option<i64>,
    /// LSP `Diagnostic` objects as the server sent them.
    pub diagnostics: Vec<Value>,
    /// The client-wide count of publications when this one arrived: a caller waiting for
    /// news compares it with what it saw before.
    pub generation: u64,
    /// When it arrived.
    pub at: Instant,
}

/// The server's stderr kept for error messages: its last this many bytes.
const STDERR_TAIL: usize = 8 << 10;

type Reply = Result<Value, (i64, String)>;

/// Called with a document's URI and what the server just published for it, on the thread
/// that reads the server (it must not block).
pub type OnPublish = Arc<dyn Fn(&str, &Published) + Send + Sync>;

/// State shared with the thread reading the server's output.
struct Shared {
    stdin: Mutex<ChildStdin>,
    pending: Mutex<HashMap<i64, mpsc::Sender<Reply>>>,
    published: Mutex<(u64, HashMap<String, Published>)>,
    news: Condvar,
    /// The server's work under way (`$/progress` tokens begun and not ended: loading a
    /// project, analysing files), and a signal when some ends.
    working: Mutex<HashMap<String, String>>,
    done_working: Condvar,
    alive: AtomicBool,
    stderr: Mutex<Vec<u8>>,
    root_uri: String,
    root_name: String,
    on_publish: Option<OnPublish>,
}

impl Shared {
    fn send(&self, msg: &Value) -> std::io::Result<()> {
        let mut w = self.stdin.lock().unwrap_or_else(|p| p.into_inner());
        write_message(&mut *w, msg)
    }

    fn stderr_tail(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|p| p.into_inner())).into()
    }

    /// A request from the server: answered with what a client without settings of its own
    /// would say.
    fn answer(&self, id: Value, method: &str, params: &Value) {
        let result = match method {
            // One entry per item asked: no settings beyond the server's defaults.
            "workspace/configuration" => Value::Array(
                params["items"]
                    .as_array()
                    .map_or(vec![], |items| items.iter().map(|_| Value::Null).collect()),
            ),
            "workspace/workspaceFolders" => {
                json!([{ "uri": self.root_uri, "name": self.root_name }])
            }
            "client/registerCapability"
            | "client/unregisterCapability"
            | "window/workDoneProgress/create"
            | "window/showMessageRequest" => Value::Null,
            _ => {
                let _ = self.send(&json!({
                    "jsonrpc": "2.0", "id": id,
                    "error": { "code": -32601, "message": format!("{method} is not supported") }
                }));
                return;
            }
        };
        let _ = self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": result }));
    }

    fn notified(&self, method: &str, params: Value) {
        if method == "$/progress" {
            let token = params["token"].to_string();
            let mut working = self.working.lock().unwrap_or_else(|p| p.into_inner());
            match params["value"]["kind"].as_str() {
                Some("begin") => {
                    let title = params["value"]["title"].as_str().unwrap_or("working");
                    working.insert(token, title.to_string());
                }
                Some("end") => {
                    working.remove(&token);
                    self.done_working.notify_all();
                }
                _ => {}
            }
            return;
        }
        if method != "textDocument/publishDiagnostics" {
            return;
        }
        let Some(uri) = params["uri"].as_str() else {
            return;
        };
        let published = {
            let mut p = self.published.lock().unwrap_or_else(|p| p.into_inner());
            p.0 += 1;
            let published = Published {
                version: params["version"].as_i64(),
                diagnostics: params["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
                generation: p.0,
                at: Instant::now(),
            };
            p.1.insert(uri.to_string(), published.clone());
            self.news.notify_all();
            published
        };
        if let Some(f) = &self.on_publish {
            f(uri, &published);
        }
    }

    fn exited(&self) {
        self.alive.store(false, Ordering::SeqCst);
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()));
        for (_, tx) in pending {
            let _ = tx.send(Err((-32099, "the language server exited".into())));
        }
        let _guard = self.published.lock().unwrap_or_else(|p| p.into_inner());
        self.news.notify_all();
    }
}

/// A running language server, initialized. Dropping it shuts the server down (and kills
/// it, with everything it started, if it does not go).
pub struct Client {
    shared: Arc<Shared>,
    child: Mutex<Child>,
    next_id: AtomicI64,
    encoding: PositionEncoding,
    capabilities: Value,
    spec: ServerSpec,
    /// Open documents by URI: their version and the text the server has.
    versions: Mutex<HashMap<String, (i64, String)>>,
}

/// How long `initialize` may take (a big workspace makes some servers slow to start).
const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a server gets to shut down before it is killed.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);

impl Client {
    /// Start the server described by `spec` in `root` (its working directory and only
    /// workspace folder) and initialize it.
    pub fn start(spec: &ServerSpec, root: &Path) -> Result<Client, LspError> {
        Client::start_with(spec, root, None)
    }

    /// [`Client::start`], calling `on_publish` whenever the server publishes diagnostics.
    pub fn start_with(
        spec: &ServerSpec,
        root: &Path,
        on_publish: Option<OnPublish>,
    ) -> Result<Client, LspError> {
        let mut cmd = Command::new(&spec.command);
        cmd.args(&spec.args)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group, so that everything it starts goes when it is killed.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().map_err(|source| LspError::Spawn {
            command: spec.command.clone(),
            source,
        })?;
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(LspError::Io(std::io::Error::other(
                "no pipes to the server",
            )));
        };
        let root_uri = uri::from_path(root);
        let shared = Arc::new(Shared {
            stdin: Mutex::new(stdin),
            pending: Mutex::new(HashMap::new()),
            published: Mutex::new((0, HashMap::new())),
            news: Condvar::new(),
            working: Mutex::new(HashMap::new()),
            done_working: Condvar::new(),
            alive: AtomicBool::new(true),
            stderr: Mutex::new(Vec::new()),
            root_uri: root_uri.clone(),
            root_name: root
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("workspace")
                .to_string(),
            on_publish,
        });
        let s = shared.clone();
        std::thread::Builder::new()
            .name(format!("lsp-{}-out", spec.language))
            .spawn(move || read_loop(&s, BufReader::new(stdout)))?;
        let s = shared.clone();
        std::thread::Builder::new()
            .name(format!("lsp-{}-err", spec.language))
            .spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut t = s.stderr.lock().unwrap_or_else(|p| p.into_inner());
                    t.extend_from_slice(&buf[..n]);
                    let over = t.len().saturating_sub(STDERR_TAIL);
                    t.drain(..over);
                }
            })?;
        let mut client = Client {
            shared,
            child: Mutex::new(child),
            next_id: AtomicI64::new(1),
            encoding: PositionEncoding::Utf16,
            capabilities: Value::Null,
            spec: spec.clone(),
            versions: Mutex::new(HashMap::new()),
        };
        let result = client.request_within(
            "initialize",
            client.initialize_params(root, &root_uri),
            INITIALIZE_TIMEOUT,
        )?;
        client.capabilities = result["capabilities"].clone();
        client.encoding = PositionEncoding::named(client.capabilities["positionEncoding"].as_str());
        client.notify("initialized", json!({}))?;
        Ok(client)
    }

    fn initialize_params(&self, root: &Path, root_uri: &str) -> Value {
        let mut params = json!({
            "processId": std::process::id(),
            "clientInfo": { "name": "ultra", "version": env!("CARGO_PKG_VERSION") },
            "rootUri": root_uri,
            "rootPath": root.to_string_lossy(),
            "workspaceFolders": [{ "uri": root_uri, "name": self.shared.root_name }],
            "capabilities": {
                "general": { "positionEncodings": PositionEncoding::OFFERED },
                "textDocument": {
                    "synchronization": { "didSave": true },
                    "publishDiagnostics": {
                        "relatedInformation": true, "versionSupport": true,
                        "codeDescriptionSupport": true, "dataSupport": true
                    },
                    "definition": { "linkSupport": false },
                    "implementation": { "linkSupport": false },
                    "references": {},
                    "hover": { "contentFormat": ["markdown", "plaintext"] },
                    "rename": { "prepareSupport": true },
                    "callHierarchy": {},
                    "codeAction": {
                        "codeActionLiteralSupport": { "codeActionKind": { "valueSet": [
                            "", "quickfix", "refactor", "refactor.extract", "refactor.inline",
                            "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"
                        ] } },
                        "isPreferredSupport": true,
                        "dataSupport": true,
                        "resolveSupport": { "properties": ["edit"] }
                    }
                },
                "workspace": {
                    "configuration": true,
                    "workspaceFolders": true,
                    "didChangeWatchedFiles": { "dynamicRegistration": true },
                    // Ultra applies a whole edit or none of it: file operations
                    // included, in one journaled batch.
                    "workspaceEdit": {
                        "documentChanges": true,
                        "resourceOperations": ["create", "rename", "delete"],
                        "failureHandling": "transactional"
                    },
                    "fileOperations": { "willRename": true, "didRename": true }
                },
                "window": { "workDoneProgress": true }
            }
        });
        if let Some(opts) = &self.spec.initialization_options {
            params["initializationOptions"] = opts.clone();
        }
        params
    }

    /// The position encoding the server chose (UTF-16 unless it said otherwise).
    pub fn encoding(&self) -> PositionEncoding {
        self.encoding
    }

    /// The server's capabilities, as it answered `initialize`.
    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }

    /// Whether the server process is still there.
    pub fn alive(&self) -> bool {
        self.shared.alive.load(Ordering::SeqCst)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.lock().unwrap_or_else(|p| p.into_inner()).id()
    }

    /// Send a request and wait for its answer (30 s at most).
    pub fn request(&self, method: &str, params: Value) -> Result<Value, LspError> {
        self.request_within(method, params, Duration::from_secs(30))
    }

    /// Send a request and wait for its answer, `timeout` at most (then it is cancelled).
    pub fn request_within(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, LspError> {
        if !self.alive() {
            return Err(self.exited());
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        self.shared
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, tx);
        // It may have died between the check above and the insert, after the reader
        // failed every pending request: then nobody would answer this one.
        if !self.alive() {
            self.shared
                .pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            return Err(self.exited());
        }
        self.shared
            .send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        match rx.recv_timeout(timeout) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) if !self.alive() => Err(self.exited()),
            Ok(Err((code, message))) => Err(LspError::Refused {
                method: method.into(),
                code,
                message,
            }),
            Err(_) => {
                self.shared
                    .pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                let _ = self.notify("$/cancelRequest", json!({ "id": id }));
                if self.alive() {
                    Err(LspError::Timeout {
                        method: method.into(),
                        after: timeout,
                    })
                } else {
                    Err(self.exited())
                }
            }
        }
    }

    fn exited(&self) -> LspError {
        LspError::Exited {
            stderr: self.shared.stderr_tail(),
        }
    }

    /// Send a notification.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), LspError> {
        if !self.alive() {
            return Err(self.exited());
        }
        self.shared
            .send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
            .map_err(LspError::from)
    }

    /// Open a document (`path` absolute) with its text.
    pub fn open(&self, path: &Path, language_id: &str, text: &str) -> Result<(), LspError> {
        let uri = uri::from_path(path);
        self.versions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(uri.clone(), (1, text.to_string()));
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": language_id, "version": 1, "text": text } }),
        )
    }

    /// Replace an open document's text; returns its new version. A server that takes
    /// incremental changes is sent only the span that differs.
    pub fn change(&self, path: &Path, text: &str) -> Result<i64, LspError> {
        let uri = uri::from_path(path);
        let (version, change) = {
            let mut docs = self.versions.lock().unwrap_or_else(|p| p.into_inner());
            let doc = docs.entry(uri.clone()).or_insert((1, String::new()));
            doc.0 += 1;
            let change = if self.incremental() {
                span_change(&doc.1, text, self.encoding)
            } else {
                json!({ "text": text })
            };
            doc.1 = text.to_string();
            (doc.0, change)
        };
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [change] }),
        )?;
        Ok(version)
    }

    /// Wait, `timeout` at most, until the server has no work under way that it reported
    /// (`$/progress`): an answer asked for while it still loads the workspace may leave
    /// out what it has not read. False when the time ran out.
    pub fn wait_until_quiet(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut working = self
            .shared
            .working
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        while !working.is_empty() {
            let now = Instant::now();
            if now >= deadline || !self.alive() {
                return false;
            }
            working = self
                .shared
                .done_working
                .wait_timeout(working, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }

    /// The titles of the work the server reported under way (`$/progress`).
    pub fn working(&self) -> Vec<String> {
        let mut titles: Vec<String> = self
            .shared
            .working
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect();
        titles.sort();
        titles
    }

    /// Whether the server asked to hear of saves (`textDocumentSync.save`).
    pub fn wants_saves(&self) -> bool {
        let save = &self.capabilities["textDocumentSync"]["save"];
        save.as_bool().unwrap_or(save.is_object())
    }

    /// Whether the server takes incremental document changes (`TextDocumentSyncKind` 2).
    fn incremental(&self) -> bool {
        let sync = &self.capabilities["textDocumentSync"];
        sync.as_u64().or_else(|| sync["change"].as_u64()) == Some(2)
    }

    /// Close a document. What the server published for it is forgotten: it was for
    /// versions the next opening starts counting again.
    pub fn close(&self, path: &Path) -> Result<(), LspError> {
        let uri = uri::from_path(path);
        self.versions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&uri);
        self.shared
            .published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .1
            .remove(&uri);
        self.notify(
            "textDocument/didClose",
            json!({ "textDocument": { "uri": uri } }),
        )
    }

    /// The count of publications so far (see [`Published::generation`]).
    pub fn generation(&self) -> u64 {
        self.shared
            .published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
    }

    /// What the server last published for `path`, if anything.
    pub fn diagnostics(&self, path: &Path) -> Option<Published> {
        let uri = uri::from_path(path);
        self.shared
            .published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .1
            .get(&uri)
            .cloned()
    }

    /// What the server last published for every document it published for, by path.
    pub fn all_diagnostics(&self) -> Vec<(PathBuf, Published)> {
        self.shared
            .published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .1
            .iter()
            .filter_map(|(uri, p)| Some((uri::to_path(uri)?, p.clone())))
            .collect()
    }

    /// Wait until the server publishes for `path` after publication `after` (and, when
    /// given, for document `version` or later), `timeout` at most.
    pub fn wait_diagnostics(
        &self,
        path: &Path,
        after: u64,
        version: Option<i64>,
        timeout: Duration,
    ) -> Option<Published> {
        let uri = uri::from_path(path);
        let deadline = Instant::now() + timeout;
        let mut p = self
            .shared
            .published
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(d) = p.1.get(&uri)
                && d.generation > after
                && version.is_none_or(|v| d.version.is_none_or(|dv| dv >= v))
            {
                return Some(d.clone());
            }
            let now = Instant::now();
            if now >= deadline || !self.alive() {
                return None;
            }
            p = self
                .shared
                .news
                .wait_timeout(p, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// The server's recent stderr (for status and errors).
    pub fn stderr_tail(&self) -> String {
        self.shared.stderr_tail()
    }

    /// What this client was started with.
    pub fn spec(&self) -> &ServerSpec {
        &self.spec
    }

    /// Kill the server and everything it started, now.
    pub fn kill(&self) {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        kill_group(&child);
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// SIGKILL to the server's process group (it was started as its leader).
fn kill_group(child: &Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is
        // involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.alive() {
            let _ = self.request_within("shutdown", Value::Null, SHUTDOWN_TIMEOUT);
            let _ = self.notify("exit", Value::Null);
        }
        let deadline = Instant::now() + SHUTDOWN_TIMEOUT;
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                _ => {
                    kill_group(&child);
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
            }
        }
        // Helpers it left behind go with its group.
        kill_group(&child);
    }
}

/// Read the server's messages until its output ends.
fn read_loop(shared: &Shared, mut out: BufReader<std::process::ChildStdout>) {
    while let Ok(Some(msg)) = read_message(&mut out) {
        let method = msg["method"].as_str().map(str::to_string);
        match (method, msg.get("id").cloned()) {
            (Some(method), Some(id)) => shared.answer(id, &method, &msg["params"]),
            (Some(method), None) => {
                let mut msg = msg;
                shared.notified(&method, msg["params"].take());
            }
            (None, Some(id)) => {
                let Some(id) = id.as_i64() else { continue };
                let tx = shared
                    .pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                if let Some(tx) = tx {
                    let reply = match msg.get("error") {
                        Some(e) => Err((
                            e["code"].as_i64().unwrap_or(0),
                            e["message"].as_str().unwrap_or("").to_string(),
                        )),
                        None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
                    };
                    let _ = tx.send(reply);
                }
            }
            (None, None) => {}
        }
    }
    shared.exited();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `change` applied to `old` as a server would: its range read in `enc`.
    fn apply(old: &str, change: &Value, enc: PositionEncoding) -> String {
        let lines: Vec<&str> = old.split('\n').collect();
        let byte = |p: &Value| {
            let line = p["line"].as_u64().unwrap() as usize;
            let start: usize = lines[..line].iter().map(|l| l.len() + 1).sum();
            start + enc.byte(lines[line], p["character"].as_u64().unwrap() as u32)
        };
        let (a, b) = (
            byte(&change["range"]["start"]),
            byte(&change["range"]["end"]),
        );
        format!(
            "{}{}{}",
            &old[..a],
            change["text"].as_str().unwrap(),
            &old[b..]
        )
    }

    #[test]
    fn a_span_change_turns_the_old_text_into_the_new_in_every_encoding() {
        // Random edits (a deterministic generator) over text with multi-byte characters,
        // surrogate pairs and line breaks, against a server's reading of the change.
        let alphabet: Vec<char> = "ab\né€😀 x\n".chars().collect();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for enc in [
            PositionEncoding::Utf8,
            PositionEncoding::Utf16,
            PositionEncoding::Utf32,
        ] {
            let mut text: String = (0..40).map(|_| alphabet[next(alphabet.len())]).collect();
            for _ in 0..300 {
                let chars: Vec<char> = text.chars().collect();
                let a = next(chars.len() + 1);
                let b = (a + next(4)).min(chars.len());
                let insert: String = (0..next(4))
                    .map(|_| alphabet[next(alphabet.len())])
                    .collect();
                let new: String = chars[..a]
                    .iter()
                    .chain(insert.chars().collect::<Vec<_>>().iter())
                    .chain(chars[b..].iter())
                    .collect();
                let change = span_change(&text, &new, enc);
                assert_eq!(
                    apply(&text, &change, enc),
                    new,
                    "{enc:?} {text:?} -> {new:?}"
                );
                text = new;
            }
        }
        // Nothing changed: an empty change.
        let c = span_change("same", "same", PositionEncoding::Utf16);
        assert_eq!(c["text"], "");
        assert_eq!(c["range"]["start"], c["range"]["end"]);
    }
}
