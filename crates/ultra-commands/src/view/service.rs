//! The server's copy of the view, the highlighters of open buffers, and the context keys
//! derived from both.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use serde_json::{Value, json};
use ultra_core::Cx;
use ultra_index::highlight::Highlighter;

use super::{Split, VIEW_CHANGED, ViewState};
use crate::services::Services;

/// The view every client sees, and what only the server keeps beside it.
#[derive(Debug, Clone, Default)]
pub(super) struct Held {
    pub view: ViewState,
    /// Keys editors set with `ultra.setContext`.
    pub custom: BTreeMap<String, Value>,
    /// What `ultra.findNext` repeats.
    pub last_find: Option<crate::find::FindArgs>,
}

/// A buffer's id and version: what a highlighter was brought up to.
type BufferAt = (u64, u64);

/// The view and the highlighting state of open buffers.
#[derive(Default)]
pub struct ViewService {
    state: Mutex<Held>,
    /// Per path: the buffer state highlighted and its highlighter; only for buffers
    /// still open.
    pub(super) highlighters: Mutex<HashMap<String, (BufferAt, Highlighter)>>,
}

impl ViewService {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Remember a search for `ultra.findNext`.
    pub fn set_last_find(&self, find: crate::find::FindArgs) {
        self.lock().last_find = Some(find);
    }

    /// The search `ultra.findNext` repeats.
    pub fn last_find(&self) -> Option<crate::find::FindArgs> {
        self.lock().last_find.clone()
    }

    /// Record the latest progress report.
    pub fn set_progress(&self, progress: Value) {
        self.lock().view.progress = Some(progress);
    }

    /// Change the view and announce it.
    pub(super) fn change(
        &self,
        cx: &Cx<'_, Services>,
        f: impl FnOnce(&mut ViewState),
    ) -> ViewState {
        self.change_held(cx, |h| f(&mut h.view)).view
    }

    /// Change the view or what the server keeps beside it, and announce the view.
    pub(super) fn change_held(&self, cx: &Cx<'_, Services>, f: impl FnOnce(&mut Held)) -> Held {
        let held = {
            let mut h = self.lock();
            f(&mut h);
            h.clone()
        };
        cx.events.emit_with(VIEW_CHANGED, Some(cx.source), || {
            serde_json::to_value(&held.view).unwrap_or_default()
        });
        held
    }
}

/// Keys derived from the view and the active buffer; `ultra.setContext` cannot set them.
pub(super) const DERIVED: &[&str] = &[
    "editorFocus",
    "editorIsOpen",
    "activeEditor",
    "editorLangId",
    "editorDirty",
    "editorReadonly",
    "editorHasSelection",
    "editorHasMultipleSelections",
    "paletteOpen",
    "terminalVisible",
    "terminalFocus",
    "sidebarVisible",
    "sidebarFocus",
    "agentPaneVisible",
    "splitView",
    "pendingConfirmations",
    "openEditors",
];

/// Every context key: derived ones, then those editors set.
pub(super) fn context_keys(cx: &Cx<'_, Services>, held: &Held) -> BTreeMap<String, Value> {
    let view = &held.view;
    let mut keys = BTreeMap::new();
    let ws = cx.services.ws();
    let active = ws.active().and_then(|p| ws.buffer(p));
    keys.insert("paletteOpen".into(), json!(view.palette.open));
    let sidebar_focus = view.sidebar && view.sidebar_focused;
    keys.insert(
        "editorFocus".into(),
        json!(!view.palette.open && !view.terminal.focused && !sidebar_focus),
    );
    keys.insert("sidebarFocus".into(), json!(sidebar_focus));
    keys.insert("terminalVisible".into(), json!(view.terminal.visible));
    keys.insert("terminalFocus".into(), json!(view.terminal.focused));
    keys.insert("editorIsOpen".into(), json!(active.is_some()));
    keys.insert("sidebarVisible".into(), json!(view.sidebar));
    keys.insert("agentPaneVisible".into(), json!(view.agent_pane));
    keys.insert("splitView".into(), json!(view.split != Split::None));
    keys.insert("openEditors".into(), json!(ws.buffers().count()));
    keys.insert(
        "pendingConfirmations".into(),
        json!(cx.confirmations.list().len()),
    );
    if let Some(b) = active {
        keys.insert("activeEditor".into(), json!(b.path.to_string()));
        keys.insert("editorLangId".into(), json!(b.language));
        keys.insert("editorDirty".into(), json!(b.is_dirty()));
        keys.insert(
            "editorReadonly".into(),
            json!(ws.root().check_writable(&b.path, true).is_err()),
        );
        keys.insert(
            "editorHasSelection".into(),
            json!(b.selections.iter().any(|s| s.anchor != s.head)),
        );
        keys.insert(
            "editorHasMultipleSelections".into(),
            json!(b.selections.len() > 1),
        );
    }
    for (k, v) in &held.custom {
        keys.insert(k.clone(), v.clone());
    }
    keys
}
