//! What every shell write passes through (redirects, built-ins, promoted commands): the
//! configured validators, for agents, exactly as the typed edit commands do; and the open
//! buffers, which learn of the change at once (a clean buffer reloads, as an undoable step)
//! or, holding unsaved changes, refuse to be overwritten behind the editor's back.

use std::sync::{Arc, Mutex};

use ultra_core::Cx;
use ultra_core::command::{FileOperation, FileOperationKind};
use ultra_core::events::EventBus;
use ultra_core::validator::WriteChecker;
use ultra_shell::run::fs::{FileOp, ShellFs, WriteHook};
use ultra_workspace::{RelPath, Workspace};

use ultra_services::Services;
use ultra_services::util::{is_human, publish_notices};

/// A write the workspace's checks refused.
pub(crate) struct Refusal {
    /// The file, from the workspace root.
    pub(crate) path: String,
    /// Why.
    pub(crate) reason: String,
}

/// The hook for one call.
pub(crate) struct Hook {
    checker: Option<WriteChecker>,
    workspace: Arc<Mutex<Workspace>>,
    events: EventBus,
    refusals: Mutex<Vec<Refusal>>,
}

/// How long one call's in-process shell work (awk and sed loops) may run: a server's
/// workers are shared, and a runaway `while(1)` must not hold one for good.
pub const SHELL_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// How much memory one call's in-process shell work may hold (checked at awk and sed loop
/// ticks, before a substitution grows past it, and on every pipe write): one request must
/// not take a server's memory from every other client.
pub const SHELL_MEMORY_LIMIT: usize = 1 << 30;

/// Confined file access for this call with every write passing through a [`Hook`].
pub(crate) fn shell_fs(cx: &Cx<'_, Services>, limit: std::time::Duration) -> (ShellFs, Arc<Hook>) {
    let hook = Arc::new(Hook {
        checker: cx.write_checker(),
        workspace: cx.services.workspace_handle(),
        events: cx.events.clone(),
        refusals: Mutex::new(Vec::new()),
    });
    let fs = ShellFs::new(cx.services.shell_root().clone(), is_human(cx))
        .with_hook(hook.clone())
        .with_code(cx.services.code_search())
        .with_text(cx.services.text_search())
        .with_meter(ultra_budget::Meter::new(
            SHELL_MEMORY_LIMIT,
            Some(std::time::Instant::now() + limit),
        ));
    (fs, hook)
}

/// After the run: validator warnings and feedback go into the result; the refused writes
/// are returned.
pub(crate) fn finish(cx: &mut Cx<'_, Services>, hook: &Hook) -> Vec<Refusal> {
    if let Some(c) = &hook.checker {
        cx.absorb(c);
    }
    std::mem::take(&mut *hook.refusals.lock().unwrap_or_else(|p| p.into_inner()))
}

impl Hook {
    fn refuse(&self, path: &RelPath, reason: String) -> Result<(), String> {
        let mut r = self.refusals.lock().unwrap_or_else(|p| p.into_inner());
        if r.len() < 100 {
            r.push(Refusal {
                path: path.as_str().to_string(),
                reason: reason.clone(),
            });
        }
        Err(reason)
    }

    /// An open buffer with unsaved changes must not be replaced from under the editor.
    fn dirty_buffer(&self, path: &RelPath) -> Option<String> {
        let ws = self.workspace.lock().unwrap_or_else(|p| p.into_inner());
        let b = ws.buffer(path)?;
        b.is_dirty().then(|| {
            format!(
                "{path} is open with unsaved changes (version {}); save or revert it first, or change it with ultra.applyEdits",
                b.version
            )
        })
    }
}

impl WriteHook for Hook {
    fn check_content(&self, path: &RelPath, content: &[u8]) -> Result<(), String> {
        if let Some(why) = self.dirty_buffer(path) {
            return self.refuse(path, why);
        }
        if let Some(c) = &self.checker
            && let Err(why) = c.content(path.as_str(), &String::from_utf8_lossy(content))
        {
            return self.refuse(path, why);
        }
        Ok(())
    }

    fn check_operation(&self, op: FileOp<'_>) -> Result<(), String> {
        let (subject, operation) = match op {
            FileOp::Create(p) => (p, FileOperation::create(p.as_str())),
            FileOp::Delete(p) => (p, FileOperation::delete(p.as_str())),
            FileOp::Rename { from, to } => (
                from,
                FileOperation::rename(FileOperationKind::Rename, from.as_str(), to.as_str()),
            ),
        };
        if !matches!(op, FileOp::Create(_))
            && let Some(why) = self.dirty_buffer(subject)
        {
            return self.refuse(subject, why);
        }
        if let (Some(c), Some(operation)) = (&self.checker, operation)
            && let Err(why) = c.operation(&operation)
        {
            return self.refuse(subject, why);
        }
        Ok(())
    }

    fn changed(&self, path: &RelPath) {
        let mut ws = self.workspace.lock().unwrap_or_else(|p| p.into_inner());
        if ws.buffer(path).is_some() {
            let _ = ws.sync_disk(path);
            publish_notices(&self.events, &mut ws);
        }
    }
}
