//! The server's copy of the view (seed 000's view commands) and the highlighters of open
//! buffers: state every client and agent shares; the view commands change it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use serde_json::Value;
use ultra_core::Cx;
use ultra_index::highlight::Highlighter;
use ultra_protocol::view::ViewState;

/// What the view announces when it changes.
pub const VIEW_CHANGED: &str = "view.changed";

/// The view every client sees, and what only the server keeps beside it.
#[derive(Debug, Clone, Default)]
pub struct Held {
    pub view: ViewState,
    /// Keys editors set with `ultra.setContext`.
    pub custom: BTreeMap<String, Value>,
    /// What `ultra.findNext` repeats.
    pub last_find: Option<Value>,
}

/// A buffer's id and version: what a highlighter was brought up to.
type BufferAt = (u64, u64);

/// The view and the highlighting state of open buffers.
#[derive(Default)]
pub struct ViewService {
    state: Mutex<Held>,
    /// Per path: the buffer state highlighted and its highlighter; only for buffers
    /// still open.
    pub highlighters: Mutex<HashMap<String, (BufferAt, Highlighter)>>,
}

impl ViewService {
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Remember a search for `ultra.findNext`.
    pub fn set_last_find(&self, find: Value) {
        self.lock().last_find = Some(find);
    }

    /// The search `ultra.findNext` repeats.
    pub fn last_find(&self) -> Option<Value> {
        self.lock().last_find.clone()
    }

    /// Record the latest progress report.
    pub fn set_progress(&self, progress: Value) {
        self.lock().view.progress = Some(progress);
    }

    /// Change the view and announce it.
    pub fn change<S>(&self, cx: &Cx<'_, S>, f: impl FnOnce(&mut ViewState)) -> ViewState {
        self.change_held(cx, |h| f(&mut h.view)).view
    }

    /// Change the view or what the server keeps beside it, and announce the view.
    pub fn change_held<S>(&self, cx: &Cx<'_, S>, f: impl FnOnce(&mut Held)) -> Held {
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
