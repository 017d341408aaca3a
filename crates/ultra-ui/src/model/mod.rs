//! The UI model: windows with their content, components, state, seen idempotency keys and
//! cancelled transactions. A batch of operations becomes [`Mutation`]s, and
//! [`Ui::mutate`] is the only thing that changes the model, so the journal replays the same
//! mutations into the same screen after a restart, and pages apply the same mutations as
//! they are broadcast.
//!
//! Each UICP operation is one function (`apply`), `uicp://` calls and clarifiers have
//! theirs (`intent`); both only propose mutations, checked on a trial copy of the model.

mod apply;
mod intent;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ops::{ApiCall, Envelope, Invalid, Scope};

/// Most windows at once.
pub const MAX_WINDOWS: usize = 64;
/// Most content pieces one window keeps (set/replace compact them; appends add up).
pub const MAX_PIECES: usize = 2_000;
/// Most bytes of markup one window keeps.
pub const MAX_WINDOW_BYTES: usize = 1024 * 1024;
/// Most bytes of markup all windows keep together.
pub const MAX_TOTAL_BYTES: usize = 8 * 1024 * 1024;
/// Most state entries.
pub const MAX_STATE: usize = 10_000;
/// Most bytes of one state value, as JSON.
pub const MAX_STATE_VALUE: usize = 64 * 1024;
/// Most bytes of all state values together, as JSON.
pub const MAX_STATE_BYTES: usize = 4 * 1024 * 1024;
/// Idempotency keys remembered (a repeat of any of them applies nothing).
pub const MAX_KEYS: usize = 8_192;

/// A window and what it shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    pub id: String,
    pub title: String,
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub z_index: i32,
    /// Content, in the order the page applies it.
    pub content: Vec<Piece>,
}

/// One piece of a window's content: sanitised markup for a target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Piece {
    /// `set`, `replace`, `append` or `component`.
    pub kind: String,
    pub target: String,
    pub html: String,
    /// For components: their id (the page wraps them in `[data-component=ID]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
}

/// A component's identity and inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Component {
    pub id: String,
    pub window_id: String,
    pub kind: String,
    pub props: Value,
}

/// A state value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub value: Value,
    /// Milliseconds since the epoch after which the value is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
}

/// Where a state value lives: scope, window (for window scope), key.
pub type StateId = (Scope, String, String);

/// A value's size as JSON.
fn json_len(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

fn state_id(scope: Scope, window: Option<&str>, key: &str) -> StateId {
    let w = if scope == Scope::Window {
        window.unwrap_or("").to_string()
    } else {
        String::new()
    };
    (scope, w, key.to_string())
}

/// A change to the model: what the journal keeps and pages apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Mutation {
    WindowOpen {
        window: Window,
        /// Made by the safety net for an operation on a missing window.
        #[serde(default)]
        synthetic: bool,
    },
    #[serde(rename_all = "camelCase")]
    WindowMove {
        id: String,
        title: String,
        x: i32,
        y: i32,
        width: u32,
        height: u32,
        z_index: i32,
    },
    WindowClose {
        id: String,
    },
    #[serde(rename_all = "camelCase")]
    Content {
        window_id: String,
        piece: Piece,
    },
    ComponentSet {
        component: Component,
        html: String,
    },
    ComponentRemove {
        id: String,
    },
    #[serde(rename_all = "camelCase")]
    State {
        scope: Scope,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        window_id: String,
        key: String,
        entry: Entry,
    },
    Key {
        key: String,
    },
    TxnCancelled {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
}

/// Something a batch asks of the layer above (it owns files and the network).
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// `uicp://intent`: tell agents what the person asked for.
    Intent(Value),
    /// `tauri://fs/writeTextFile`: write a file in the workspace.
    WriteFile { path: String, contents: String },
    /// `http(s)://`: allowed only for hosts in the config; `op` is its place in the batch
    /// (and in the results).
    Http { op: usize, call: ApiCall },
    /// `state.watch` / `state.unwatch` by the caller.
    Watch { id: StateId, on: bool },
}

/// What a batch did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Outcome {
    /// One result per operation, in order.
    pub results: Vec<Value>,
    /// The changes made, to journal and broadcast.
    pub mutations: Vec<Mutation>,
    pub effects: Vec<Effect>,
}

/// The whole UI.
#[derive(Debug, Default, Clone)]
pub struct Ui {
    windows: Vec<Window>,
    components: BTreeMap<String, Component>,
    state: BTreeMap<StateId, Entry>,
    /// The state values' size as JSON, kept by `mutate`.
    state_bytes: usize,
    keys: HashSet<String>,
    key_order: VecDeque<String>,
    cancelled: BTreeSet<String>,
    next: u64,
}

impl Ui {
    /// The windows, oldest first.
    pub fn windows(&self) -> &[Window] {
        &self.windows
    }

    /// A window by id.
    pub fn window(&self, id: &str) -> Option<&Window> {
        self.windows.iter().find(|w| w.id == id)
    }

    /// The live state entries at `now` (ms since the epoch).
    pub fn state(&self, now: u64) -> Vec<(StateId, Value)> {
        self.state
            .iter()
            .filter(|(_, e)| e.expires_at.is_none_or(|t| t > now))
            .map(|(k, e)| (k.clone(), e.value.clone()))
            .collect()
    }

    /// Everything a page needs to draw the current screen.
    pub fn snapshot(&self, now: u64) -> Value {
        json!({
            "windows": self.windows,
            "state": self.state(now).into_iter().map(|((scope, w, key), value)| {
                json!({"scope": scope, "windowId": w, "key": key, "value": value})
            }).collect::<Vec<_>>(),
        })
    }

    fn fresh_id(&mut self, prefix: &str) -> String {
        loop {
            self.next += 1;
            let id = format!("{prefix}-{}", self.next);
            if self.window(&id).is_none() && !self.components.contains_key(&id) {
                return id;
            }
        }
    }

    /// Apply a parsed batch at `now`. Every operation is checked against the model first
    /// (budgets of windows and content, known ids); a refusal applies nothing.
    pub fn apply(&mut self, batch: &[Envelope], now: u64) -> Result<Outcome, Invalid> {
        let mut trial = self.clone();
        let mut out = Outcome::default();
        for (i, env) in batch.iter().enumerate() {
            if let Some(k) = &env.idempotency_key
                && trial.keys.contains(k)
            {
                out.results
                    .push(json!({"op": env.op.name(), "duplicate": true}));
                continue;
            }
            if let Some(t) = &env.txn_id
                && trial.cancelled.contains(t)
            {
                out.results
                    .push(json!({"op": env.op.name(), "cancelled": true}));
                continue;
            }
            let before = out.mutations.len();
            let result = trial.apply_one(&env.op, i, now, &mut out)?;
            if let Some(k) = &env.idempotency_key {
                out.mutations.push(Mutation::Key { key: k.clone() });
            }
            for m in &out.mutations[before..] {
                trial.mutate(m);
            }
            out.results.push(result);
        }
        *self = trial;
        Ok(out)
    }

    /// Make one change (the only way the model changes).
    pub fn mutate(&mut self, m: &Mutation) {
        match m {
            Mutation::WindowOpen { window, .. } => {
                self.windows.retain(|w| w.id != window.id);
                self.windows.push(window.clone());
            }
            Mutation::WindowMove {
                id,
                title,
                x,
                y,
                width,
                height,
                z_index,
            } => {
                if let Some(w) = self.windows.iter_mut().find(|w| &w.id == id) {
                    w.title = title.clone();
                    (w.x, w.y, w.width, w.height, w.z_index) = (*x, *y, *width, *height, *z_index);
                }
            }
            Mutation::WindowClose { id } => {
                self.windows.retain(|w| &w.id != id);
                self.components.retain(|_, c| &c.window_id != id);
                self.state
                    .retain(|(scope, w, _), _| !(*scope == Scope::Window && w == id));
                self.state_bytes = self.state.values().map(|e| json_len(&e.value)).sum();
            }
            Mutation::Content { window_id, piece } => {
                if let Some(w) = self.windows.iter_mut().find(|w| &w.id == window_id) {
                    // A set (or replace) of a target supersedes what was put there
                    // before; of the root, everything.
                    if piece.kind == "set" || piece.kind == "replace" {
                        if piece.target == "root" {
                            w.content.clear();
                        } else {
                            w.content.retain(|p| p.target != piece.target);
                        }
                    }
                    w.content.push(piece.clone());
                }
            }
            Mutation::ComponentSet { component, html } => {
                if let Some(w) = self
                    .windows
                    .iter_mut()
                    .find(|w| w.id == component.window_id)
                    && let Some(p) = w
                        .content
                        .iter_mut()
                        .find(|p| p.component.as_deref() == Some(&component.id))
                {
                    p.html = html.clone();
                }
                self.components
                    .insert(component.id.clone(), component.clone());
            }
            Mutation::ComponentRemove { id } => {
                if let Some(c) = self.components.remove(id)
                    && let Some(w) = self.windows.iter_mut().find(|w| w.id == c.window_id)
                {
                    w.content.retain(|p| p.component.as_deref() != Some(id));
                }
            }
            Mutation::State {
                scope,
                window_id,
                key,
                entry,
            } => {
                let added = json_len(&entry.value);
                let old = self
                    .state
                    .insert((*scope, window_id.clone(), key.clone()), entry.clone());
                self.state_bytes = (self.state_bytes + added)
                    .saturating_sub(old.map_or(0, |e| json_len(&e.value)));
            }
            Mutation::Key { key } => {
                if self.keys.insert(key.clone()) {
                    self.key_order.push_back(key.clone());
                    while self.key_order.len() > MAX_KEYS {
                        if let Some(old) = self.key_order.pop_front() {
                            self.keys.remove(&old);
                        }
                    }
                }
            }
            Mutation::TxnCancelled { id } => {
                if let Some(id) = id {
                    if self.cancelled.len() >= MAX_KEYS {
                        self.cancelled.clear();
                    }
                    self.cancelled.insert(id.clone());
                }
            }
        }
    }

    /// The mutations that rebuild this model from nothing (for compacting the journal).
    pub fn rebuild(&self, now: u64) -> Vec<Mutation> {
        let mut out = Vec::new();
        for w in &self.windows {
            out.push(Mutation::WindowOpen {
                window: w.clone(),
                synthetic: false,
            });
        }
        for c in self.components.values() {
            let html = self
                .window(&c.window_id)
                .and_then(|w| {
                    w.content
                        .iter()
                        .find(|p| p.component.as_deref() == Some(&c.id))
                })
                .map(|p| p.html.clone())
                .unwrap_or_default();
            out.push(Mutation::ComponentSet {
                component: c.clone(),
                html,
            });
        }
        for ((scope, window_id, key), entry) in &self.state {
            if entry.expires_at.is_none_or(|t| t > now) {
                out.push(Mutation::State {
                    scope: *scope,
                    window_id: window_id.clone(),
                    key: key.clone(),
                    entry: entry.clone(),
                });
            }
        }
        for k in &self.key_order {
            out.push(Mutation::Key { key: k.clone() });
        }
        for t in &self.cancelled {
            out.push(Mutation::TxnCancelled {
                id: Some(t.clone()),
            });
        }
        out
    }
}
