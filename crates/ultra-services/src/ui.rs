//! The UICP model (seed 002) as a workspace service: the model, its journal in the state
//! directory (one process owns it, under a lock) and who watches which state.

use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::Value;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_ui::journal::Journal;
use ultra_ui::model::{StateId, Ui};

/// The UI model, its journal and who watches which state; opened on first use.
pub struct UiService {
    dir: PathBuf,
    inner: Mutex<Option<Open>>,
}

pub struct Open {
    pub ui: Ui,
    pub journal: Journal,
    /// Held while open: one process owns the journal.
    _lock: File,
    pub watchers: HashMap<StateId, BTreeSet<String>>,
}

/// Milliseconds since the epoch, the UI model's clock.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl UiService {
    /// The service keeping its journal in `dir` (the workspace's state directory).
    pub fn new(dir: PathBuf) -> UiService {
        UiService {
            dir,
            inner: Mutex::new(None),
        }
    }

    pub fn with<R>(&self, f: impl FnOnce(&mut Open) -> R) -> Result<R, CommandError> {
        let mut slot = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(self.open()?);
        }
        let open = slot.as_mut().ok_or_else(|| {
            CommandError::new(ErrorCode::InternalError, "the UI state did not open")
        })?;
        Ok(f(open))
    }

    fn open(&self) -> Result<Open, CommandError> {
        use std::os::unix::fs::DirBuilderExt;
        let io = |e: std::io::Error| {
            CommandError::new(ErrorCode::IoError, format!("UI state: {e}"))
                .with_suggestion("check that the state directory is writable")
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(io)?;
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("ui.lock"))
            .map_err(io)?;
        // SAFETY: flock on a descriptor we own.
        if unsafe {
            libc::flock(
                std::os::fd::AsRawFd::as_raw_fd(&lock),
                libc::LOCK_EX | libc::LOCK_NB,
            )
        } != 0
        {
            return Err(CommandError::new(
                ErrorCode::AccessDenied,
                "another Ultra process (a running `ultra serve`) owns this workspace's UI",
            )
            .with_suggestion(
                "send UI operations through the running server (its socket or WebSocket)",
            ));
        }
        let (journal, ui) = Journal::open(&self.dir.join("ui.jsonl"), now_ms()).map_err(io)?;
        Ok(Open {
            ui,
            journal,
            _lock: lock,
            watchers: HashMap::new(),
        })
    }

    /// Everything a page needs to draw the current screen.
    pub fn snapshot(&self) -> Result<Value, CommandError> {
        self.with(|o| o.ui.snapshot(now_ms()))
    }
}
