//! Where the editor's commands go: the executor in this process (the editor hosts the
//! workspace) or a running `ultra serve` over its Unix socket. Either way a key press is a
//! command by name with JSON arguments, and the editor learns of changes from events.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use ultra_core::{Executor, Host};
use ultra_ipc::{Caller, Client};
use ultra_protocol::{CommandError, ErrorCode, Event, Source, SourceKind};

/// Where events go: returns false once nobody listens.
pub type Sink = Box<dyn FnMut(Event) -> bool + Send>;

/// A way to run commands and hear events.
pub trait Backend: Send {
    /// Run a command as the person at the editor.
    fn call(&mut self, command: &str, args: Value) -> Result<Value, CommandError>;
    /// Deliver every event to `sink` from now on, from a thread of the backend's, until
    /// it returns false.
    fn subscribe(&mut self, sink: Sink) -> Result<(), CommandError>;
    /// One line for the status bar: hosting or attached, and where.
    fn describe(&self) -> String;
}

/// The executor in this process.
pub struct Local<S: Host> {
    exec: Arc<Executor<S>>,
    rt: tokio::runtime::Handle,
    source: Source,
    socket: Option<PathBuf>,
}

impl<S: Host> Local<S> {
    /// Run commands on `exec` (on `rt`), as a person in session `session`; `socket` is
    /// where agents can join, if the editor serves one.
    pub fn new(
        exec: Arc<Executor<S>>,
        rt: tokio::runtime::Handle,
        session: String,
        socket: Option<PathBuf>,
    ) -> Local<S> {
        let mut source = Source::new(SourceKind::Human);
        source.session_id = Some(session);
        Local {
            exec,
            rt,
            source,
            socket,
        }
    }
}

impl<S: Host> Backend for Local<S> {
    fn call(&mut self, command: &str, args: Value) -> Result<Value, CommandError> {
        let r = self
            .rt
            .block_on(self.exec.execute(command, args, self.source.clone()));
        match r.error {
            None => Ok(r.data.unwrap_or(Value::Null)),
            Some(e) => Err(e),
        }
    }

    fn subscribe(&mut self, mut sink: Sink) -> Result<(), CommandError> {
        let mut rx = self.exec.events().subscribe();
        self.rt.spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                let ev = match rx.recv().await {
                    Ok(ev) => ev,
                    Err(RecvError::Lagged(n)) => Event {
                        event: "events.lagged".into(),
                        data: serde_json::json!({ "missed": n }),
                        source: None,
                    },
                    Err(RecvError::Closed) => break,
                };
                if !sink(ev) {
                    break;
                }
            }
        });
        Ok(())
    }

    fn describe(&self) -> String {
        match &self.socket {
            Some(p) => format!("hosting; agents join at {}", p.display()),
            None => "hosting (no socket)".into(),
        }
    }
}

/// A running `ultra serve`, over its socket.
pub struct Remote {
    client: Client,
    socket: PathBuf,
    caller: Caller,
}

impl Remote {
    /// Connect to the server at `socket` as a person (the server accepts that only from a
    /// process in the foreground of a terminal).
    pub fn connect(socket: PathBuf, session: String) -> Result<Remote, ultra_ipc::ClientError> {
        let caller = Caller {
            source: Some(SourceKind::Human),
            agent_id: None,
            session_id: Some(session),
        };
        let mut client = Client::connect(&socket)?;
        client.identify(&caller)?;
        Ok(Remote {
            client,
            socket,
            caller,
        })
    }
}

impl Backend for Remote {
    fn call(&mut self, command: &str, args: Value) -> Result<Value, CommandError> {
        self.client
            .call(command, args)
            .map_err(|e| e.command_error())
    }

    fn subscribe(&mut self, mut sink: Sink) -> Result<(), CommandError> {
        let mut events = Client::connect(&self.socket).map_err(|e| e.command_error())?;
        events
            .identify(&self.caller)
            .map_err(|e| e.command_error())?;
        events.subscribe(&["*"]).map_err(|e| e.command_error())?;
        std::thread::Builder::new()
            .name("ultra-editor-events".into())
            .spawn(move || {
                while let Ok(ev) = events.next_event() {
                    if !sink(ev) {
                        return;
                    }
                }
                sink(Event {
                    event: "server.closed".into(),
                    data: Value::Null,
                    source: None,
                });
            })
            .map_err(|e| {
                CommandError::new(
                    ErrorCode::InternalError,
                    format!("cannot start a thread: {e}"),
                )
            })?;
        Ok(())
    }

    fn describe(&self) -> String {
        format!("attached to {}", self.socket.display())
    }
}
