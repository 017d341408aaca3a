//! The UI model: windows with their content, components, state, seen idempotency keys and
//! cancelled transactions. A batch of operations becomes [`Mutation`]s, and
//! [`Ui::mutate`] is the only thing that changes the model, so the journal replays the same
//! mutations into the same screen after a restart, and pages apply the same mutations as
//! they are broadcast.

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::components;
use crate::ops::{ApiCall, Envelope, Invalid, Op, Scope, Size, WindowCreate};
use crate::sanitize;

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

    /// The safety net: a window an operation names but that does not exist is created
    /// (and the creation journaled, so a replay builds the same screen).
    fn ensure_window(&mut self, id: &str, out: &mut Outcome) -> Result<(), Invalid> {
        if self.window(id).is_some() {
            return Ok(());
        }
        let w = self.new_window(
            &WindowCreate {
                id: Some(id.to_string()),
                title: id.to_string(),
                x: None,
                y: None,
                width: None,
                height: None,
                z_index: None,
                size: None,
            },
            "",
        )?;
        let m = Mutation::WindowOpen {
            window: w,
            synthetic: true,
        };
        self.mutate(&m);
        out.mutations.push(m);
        Ok(())
    }

    fn new_window(&mut self, p: &WindowCreate, at: &str) -> Result<Window, Invalid> {
        if self.windows.len() >= MAX_WINDOWS {
            return Err(Invalid::at(
                at,
                format!("{MAX_WINDOWS} windows are open; close one first"),
            ));
        }
        let (dw, dh) = p.size.unwrap_or(Size::Md).pixels();
        let n = self.windows.len() as i32;
        let id = match &p.id {
            Some(id) => id.clone(),
            None => self.fresh_id("win"),
        };
        Ok(Window {
            id,
            title: p.title.clone(),
            x: p.x.unwrap_or(40 + 24 * (n % 10)),
            y: p.y.unwrap_or(40 + 24 * (n % 10)),
            width: p.width.unwrap_or(dw),
            height: p.height.unwrap_or(dh),
            z_index: p.z_index.unwrap_or(n + 1),
            content: Vec::new(),
        })
    }

    /// Apply the batch's `index`th operation; problems point under `/index/params`.
    fn apply_one(
        &mut self,
        op: &Op,
        index: usize,
        now: u64,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
        let at = &format!("/{index}/params");
        let name = op.name();
        let ok = |extra: Value| {
            let mut v = json!({"op": name});
            if let (Some(m), Value::Object(e)) = (v.as_object_mut(), extra) {
                m.extend(e);
            }
            v
        };
        match op {
            Op::WindowCreate(p) => {
                if let Some(id) = &p.id
                    && self.window(id).is_some()
                {
                    return Err(Invalid::at(
                        format!("{at}/id"),
                        format!("window `{id}` exists; use window.update"),
                    ));
                }
                let w = self.new_window(p, at)?;
                let id = w.id.clone();
                out.mutations.push(Mutation::WindowOpen {
                    window: w,
                    synthetic: false,
                });
                Ok(ok(json!({"windowId": id})))
            }
            Op::WindowUpdate(p) => {
                self.ensure_window(&p.id, out)?;
                let w = self
                    .window(&p.id)
                    .cloned()
                    .ok_or_else(|| Invalid::at(at, "no window"))?;
                out.mutations.push(Mutation::WindowMove {
                    id: w.id.clone(),
                    title: p.title.clone().unwrap_or(w.title),
                    x: p.x.unwrap_or(w.x),
                    y: p.y.unwrap_or(w.y),
                    width: p.width.unwrap_or(w.width),
                    height: p.height.unwrap_or(w.height),
                    z_index: p.z_index.unwrap_or(w.z_index),
                });
                Ok(ok(json!({"windowId": p.id})))
            }
            Op::WindowClose(p) => {
                if self.window(&p.id).is_none() {
                    return Err(Invalid::at(
                        format!("{at}/id"),
                        format!("no window `{}`", p.id),
                    ));
                }
                out.mutations
                    .push(Mutation::WindowClose { id: p.id.clone() });
                Ok(ok(json!({"windowId": p.id})))
            }
            Op::DomSet(p) | Op::DomReplace(p) | Op::DomAppend(p) => {
                self.ensure_window(&p.window_id, out)?;
                let (html, issues) = sanitize::clean(&p.html);
                if let Some(first) = issues.first() {
                    return Err(Invalid::at(format!("{at}/html"), first.message.clone()));
                }
                let kind = name.trim_start_matches("dom.").to_string();
                let supersedes = kind != "append";
                self.room_after(
                    &p.window_id,
                    |x| supersedes && (p.target == "root" || x.target == p.target),
                    html.len(),
                    at,
                )?;
                out.mutations.push(Mutation::Content {
                    window_id: p.window_id.clone(),
                    piece: Piece {
                        kind,
                        target: p.target.clone(),
                        html,
                        component: None,
                    },
                });
                Ok(ok(json!({"windowId": p.window_id})))
            }
            Op::ComponentRender(p) => {
                self.ensure_window(&p.window_id, out)?;
                let props = p.props.clone().unwrap_or(json!({}));
                let html = components::render(&p.kind, &props, &format!("{at}/props"))?;
                let id = match &p.id {
                    Some(id) if self.components.contains_key(id) => {
                        return Err(Invalid::at(
                            format!("{at}/id"),
                            format!("component `{id}` exists; use component.update"),
                        ));
                    }
                    Some(id) => id.clone(),
                    None => self.fresh_id("cmp"),
                };
                self.room_after(&p.window_id, |_| false, html.len(), at)?;
                out.mutations.push(Mutation::Content {
                    window_id: p.window_id.clone(),
                    piece: Piece {
                        kind: "component".into(),
                        target: p.target.clone(),
                        html: html.clone(),
                        component: Some(id.clone()),
                    },
                });
                out.mutations.push(Mutation::ComponentSet {
                    component: Component {
                        id: id.clone(),
                        window_id: p.window_id.clone(),
                        kind: p.kind.clone(),
                        props,
                    },
                    html,
                });
                Ok(ok(json!({"componentId": id, "windowId": p.window_id})))
            }
            Op::ComponentUpdate(p) => {
                let Some(c) = self.components.get(&p.id).cloned() else {
                    return Err(Invalid::at(
                        format!("{at}/id"),
                        format!("no component `{}`", p.id),
                    ));
                };
                let html = components::render(&c.kind, &p.props, &format!("{at}/props"))?;
                self.room_after(
                    &c.window_id,
                    |x| x.component.as_deref() == Some(&c.id),
                    html.len(),
                    at,
                )?;
                out.mutations.push(Mutation::ComponentSet {
                    component: Component {
                        props: p.props.clone(),
                        ..c
                    },
                    html,
                });
                Ok(ok(json!({"componentId": p.id})))
            }
            Op::ComponentDestroy(p) => {
                if !self.components.contains_key(&p.id) {
                    return Err(Invalid::at(
                        format!("{at}/id"),
                        format!("no component `{}`", p.id),
                    ));
                }
                out.mutations
                    .push(Mutation::ComponentRemove { id: p.id.clone() });
                Ok(ok(json!({"componentId": p.id})))
            }
            Op::StateSet(p) => {
                let size = json_len(&p.value);
                if size > MAX_STATE_VALUE {
                    return Err(Invalid::at(
                        format!("{at}/value"),
                        format!(
                            "a state value of {size} bytes is over the {MAX_STATE_VALUE}-byte limit"
                        ),
                    ));
                }
                let id = state_id(p.scope, p.window_id.as_deref(), &p.key);
                let old = self.state.get(&id).map_or(0, |e| json_len(&e.value));
                if self.state_bytes.saturating_sub(old) + size > MAX_STATE_BYTES {
                    return Err(Invalid::at(
                        format!("{at}/value"),
                        format!(
                            "state would hold over {MAX_STATE_BYTES} bytes; remove values or give them a ttlMs"
                        ),
                    ));
                }
                if !self.state.contains_key(&id) && self.state.len() >= MAX_STATE {
                    return Err(Invalid::at(
                        format!("{at}/key"),
                        format!("{MAX_STATE} state entries exist; reuse a key"),
                    ));
                }
                out.mutations.push(Mutation::State {
                    scope: id.0,
                    window_id: id.1,
                    key: id.2,
                    entry: Entry {
                        value: p.value.clone(),
                        expires_at: p.ttl_ms.map(|t| now.saturating_add(t)),
                    },
                });
                Ok(ok(json!({})))
            }
            Op::StateGet(p) => {
                let id = state_id(p.scope, p.window_id.as_deref(), &p.key);
                let value = self
                    .state
                    .get(&id)
                    .filter(|e| e.expires_at.is_none_or(|t| t > now))
                    .map(|e| e.value.clone());
                Ok(ok(json!({"found": value.is_some(), "value": value})))
            }
            Op::StateWatch(p) | Op::StateUnwatch(p) => {
                let id = state_id(p.scope, p.window_id.as_deref(), &p.key);
                out.effects.push(Effect::Watch {
                    id,
                    on: matches!(op, Op::StateWatch(_)),
                });
                Ok(ok(json!({})))
            }
            Op::ApiCall(p) => self.api_call(p, index, at, out).map(ok),
            Op::TxnCancel(p) => {
                out.mutations
                    .push(Mutation::TxnCancelled { id: p.id.clone() });
                Ok(ok(json!({"txnId": p.id})))
            }
        }
    }

    /// Whether `window` stays within its budgets (and all windows within theirs) once the
    /// pieces `gone` picks are dropped and `bytes` of markup added. Bounding the model also
    /// bounds what each batch's trial copy costs.
    fn room_after(
        &self,
        window: &str,
        gone: impl Fn(&Piece) -> bool,
        bytes: usize,
        at: &str,
    ) -> Result<(), Invalid> {
        let Some(w) = self.window(window) else {
            return Ok(());
        };
        let (pieces, used) = w
            .content
            .iter()
            .filter(|p| !gone(p))
            .fold((0, 0), |(n, b), p| (n + 1, b + p.html.len()));
        let others: usize = self
            .windows
            .iter()
            .filter(|x| x.id != window)
            .flat_map(|x| x.content.iter().map(|p| p.html.len()))
            .sum();
        if pieces >= MAX_PIECES
            || used + bytes > MAX_WINDOW_BYTES
            || others + used + bytes > MAX_TOTAL_BYTES
        {
            return Err(Invalid::at(
                at,
                format!(
                    "window `{window}` would hold too much ({pieces} pieces, {} bytes; all windows {} bytes); dom.set its root to start over, or close windows",
                    used + bytes,
                    others + used + bytes
                ),
            ));
        }
        Ok(())
    }

    fn api_call(
        &mut self,
        p: &ApiCall,
        index: usize,
        at: &str,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
        let url = p.url.as_str();
        if url == "uicp://intent" {
            let body = p.body.clone().unwrap_or(json!({}));
            let body = crate::ops::normalise(body);
            if body.get("text").is_some() {
                if body.get("fields").is_some() || body.get("textPrompt").is_some() {
                    return Err(Invalid::at(
                        format!("{at}/body/text"),
                        "a structured clarifier has textPrompt or fields, not text",
                    ));
                }
                let text = body["text"].as_str().ok_or_else(|| {
                    Invalid::at(format!("{at}/body/text"), "text must be a string")
                })?;
                out.effects.push(Effect::Intent(json!({
                    "text": text, "windowId": body.get("windowId"),
                })));
                return Ok(json!({"intent": "text"}));
            }
            if body.get("answers").is_some() {
                // A clarifier's submitted form, sent back by the page.
                out.effects.push(Effect::Intent(json!({
                    "answers": body["answers"], "windowId": body.get("windowId"),
                    "clarifier": body.get("clarifier"),
                })));
                return Ok(json!({"intent": "answers"}));
            }
            if body.get("fields").is_none() && body.get("textPrompt").is_none() {
                return Err(Invalid::at(
                    format!("{at}/body"),
                    "uicp://intent needs text, or a clarifier with textPrompt or fields",
                ));
            }
            return self.clarifier(&body, &format!("{at}/body"), out);
        }
        if url.starts_with("tauri://fs/writeTextFile") {
            let body = p.body.clone().unwrap_or(json!({}));
            let (Some(path), Some(contents)) = (
                body.get("path").and_then(Value::as_str),
                body.get("contents").and_then(Value::as_str),
            ) else {
                return Err(Invalid::at(
                    format!("{at}/body"),
                    "writeTextFile needs body {path, contents}",
                ));
            };
            out.effects.push(Effect::WriteFile {
                path: path.to_string(),
                contents: contents.to_string(),
            });
            return Ok(json!({"path": path}));
        }
        if url.starts_with("http://") || url.starts_with("https://") {
            out.effects.push(Effect::Http {
                op: index,
                call: p.clone(),
            });
            return Ok(json!({"url": url}));
        }
        // Unknown schemes are no-ops (seed 002), so sequencing stays idempotent.
        Ok(json!({"ignored": true}))
    }

    /// A structured clarifier: a window with a form whose submit sends the answers back as
    /// an intent and closes the window.
    fn clarifier(&mut self, body: &Value, at: &str, out: &mut Outcome) -> Result<Value, Invalid> {
        let id = match body.get("windowId").and_then(Value::as_str) {
            Some(w) => w.to_string(),
            None => self.fresh_id("clarify"),
        };
        let fields = body.get("fields").cloned().unwrap_or(json!([]));
        let names: Vec<String> = fields
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.get("name").and_then(Value::as_str).map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let answers: serde_json::Map<String, Value> = names
            .iter()
            .map(|n| (n.clone(), json!(format!("{{{{form.{n}}}}}"))))
            .collect();
        let submit = json!([
            {"op": "api.call", "params": {"method": "POST", "url": "uicp://intent",
              "body": {"clarifier": id, "windowId": id, "answers": answers}}},
            {"op": "window.close", "params": {"id": id}},
        ]);
        let cancel = json!([{"op": "window.close", "params": {"id": id}}]);
        let mut props = json!({
            "fields": fields,
            "submit": body.get("submit").cloned().unwrap_or(json!("Continue")),
            "command": submit,
        });
        if let Some(c) = body.get("cancel") {
            props["cancel"] = c.clone();
            props["cancelCommand"] = cancel;
        }
        let form = components::form(&props, at)?;
        let mut html = String::new();
        for key in ["description", "textPrompt"] {
            if let Some(t) = body.get(key).and_then(Value::as_str) {
                html.push_str(&format!(
                    "<p class=\"uicp-prompt\">{}</p>",
                    components::esc(t)
                ));
            }
        }
        html.push_str(&form);
        if self.window(&id).is_none() {
            let w = self.new_window(
                &WindowCreate {
                    id: Some(id.clone()),
                    title: body
                        .get("title")
                        .and_then(Value::as_str)
                        .unwrap_or("Clarify")
                        .to_string(),
                    x: None,
                    y: None,
                    width: body
                        .get("width")
                        .and_then(Value::as_u64)
                        .map(|v| v.max(120) as u32),
                    height: body
                        .get("height")
                        .and_then(Value::as_u64)
                        .map(|v| v.max(120) as u32),
                    z_index: None,
                    size: None,
                },
                at,
            )?;
            let m = Mutation::WindowOpen {
                window: w,
                synthetic: false,
            };
            self.mutate(&m);
            out.mutations.push(m);
        }
        out.mutations.push(Mutation::Content {
            window_id: id.clone(),
            piece: Piece {
                kind: "set".into(),
                target: "root".into(),
                html,
                component: None,
            },
        });
        Ok(json!({"intent": "clarifier", "windowId": id}))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::parse_batch;

    fn apply(ui: &mut Ui, v: Value) -> Result<Outcome, Invalid> {
        ui.apply(&parse_batch(v)?, 1_000)
    }

    #[test]
    fn windows_content_and_the_safety_net() {
        let mut ui = Ui::default();
        let out = apply(
            &mut ui,
            json!([
                {"op": "window.create", "params": {"id": "w1", "title": "One", "size": "sm"}},
                {"op": "dom.set", "params": {"windowId": "w1", "target": "root", "html": "<p id=s>hi</p><script>x</script>"}},
                {"op": "dom.append", "params": {"windowId": "ghost", "target": "root", "html": "<b>b</b>"}},
            ]),
        )
        .expect("applies");
        assert_eq!(out.results.len(), 3);
        let w = ui.window("w1").expect("w1");
        assert_eq!((w.width, w.height), (360, 260));
        assert_eq!(w.content[0].html, "<p id=\"u-s\">hi</p>");
        let ghost = ui.window("ghost").expect("made by the safety net");
        assert_eq!(ghost.content.len(), 1);
        assert!(out.mutations.iter().any(|m| matches!(
            m,
            Mutation::WindowOpen {
                synthetic: true,
                ..
            }
        )));
        // Replaying the mutations gives the same screen.
        let mut replay = Ui::default();
        for m in &out.mutations {
            replay.mutate(m);
        }
        assert_eq!(replay.windows(), ui.windows());
        // A set supersedes earlier content of its target.
        apply(&mut ui, json!([{"op": "dom.set", "params": {"windowId": "w1", "target": "root", "html": "new"}}])).expect("set");
        assert_eq!(ui.window("w1").expect("w1").content.len(), 1);
    }

    #[test]
    fn content_is_bounded() {
        let mut ui = Ui::default();
        let piece = "x".repeat(60 * 1024);
        apply(
            &mut ui,
            json!([{"op": "window.create", "params": {"id": "w", "title": "T"}}]),
        )
        .expect("w");
        // Sets of distinct targets add up like appends.
        let mut refused = None;
        for i in 0..40 {
            let r = apply(
                &mut ui,
                json!([{"op": "dom.set", "params": {"windowId": "w", "target": format!("#t{i}"), "html": piece}}]),
            );
            if let Err(e) = r {
                refused = Some(i);
                assert!(e.message.contains("too much"), "{}", e.message);
                break;
            }
        }
        assert_eq!(refused, Some(17), "1 MB per window");
        // Setting a target again replaces it, so it still fits.
        apply(
            &mut ui,
            json!([{"op": "dom.set", "params": {"windowId": "w", "target": "#t0", "html": piece}}]),
        )
        .expect("replace");
        // And setting the root starts over.
        apply(
            &mut ui,
            json!([{"op": "dom.set", "params": {"windowId": "w", "target": "root", "html": "ok"}}]),
        )
        .expect("root");
        assert_eq!(ui.window("w").expect("w").content.len(), 1);
    }

    #[test]
    fn a_refused_batch_changes_nothing() {
        let mut ui = Ui::default();
        let e = apply(
            &mut ui,
            json!([
                {"op": "window.create", "params": {"id": "w1", "title": "One"}},
                {"op": "window.close", "params": {"id": "nope"}},
            ]),
        )
        .expect_err("unknown window");
        assert_eq!(e.pointer, "/1/params/id");
        assert!(ui.windows().is_empty());
    }

    #[test]
    fn idempotency_state_components_and_txns() {
        let mut ui = Ui::default();
        let b = json!([{"op": "window.create", "idempotencyKey": "k", "params": {"id": "w", "title": "T"}}]);
        apply(&mut ui, b.clone()).expect("first");
        let again = apply(&mut ui, b).expect("repeat");
        assert_eq!(again.results[0]["duplicate"], true);
        assert_eq!(ui.windows().len(), 1);

        apply(&mut ui, json!([{"op": "state.set", "params": {"scope": "window", "windowId": "w", "key": "k", "value": 5, "ttlMs": 10}}])).expect("set");
        let got = ui.apply(&parse_batch(json!([{"op": "state.get", "params": {"scope": "window", "windowId": "w", "key": "k"}}])).expect("p"), 1_005).expect("get");
        assert_eq!(got.results[0]["value"], 5);
        let gone = ui.apply(&parse_batch(json!([{"op": "state.get", "params": {"scope": "window", "windowId": "w", "key": "k"}}])).expect("p"), 1_011).expect("get");
        assert_eq!(gone.results[0]["found"], false);

        let out = apply(&mut ui, json!([{"op": "component.render", "params": {"id": "t", "windowId": "w", "target": "root", "type": "list", "props": {"items": ["a"]}}}])).expect("render");
        assert_eq!(out.results[0]["componentId"], "t");
        apply(
            &mut ui,
            json!([{"op": "component.update", "params": {"id": "t", "props": {"items": ["b"]}}}]),
        )
        .expect("update");
        let piece = &ui.window("w").expect("w").content[0];
        assert!(piece.html.contains("<li>b</li>"), "{}", piece.html);
        apply(
            &mut ui,
            json!([{"op": "component.destroy", "params": {"id": "t"}}]),
        )
        .expect("destroy");
        assert!(ui.window("w").expect("w").content.is_empty());

        apply(
            &mut ui,
            json!([{"op": "txn.cancel", "params": {"id": "t1"}}]),
        )
        .expect("cancel");
        let c = apply(
            &mut ui,
            json!([{"op": "window.create", "txnId": "t1", "params": {"id": "late", "title": "L"}}]),
        )
        .expect("cancelled");
        assert_eq!(c.results[0]["cancelled"], true);
        assert!(ui.window("late").is_none());
    }

    #[test]
    fn intents_and_clarifiers() {
        let mut ui = Ui::default();
        let out = apply(&mut ui, json!([{"op": "api.call", "params": {"method": "POST", "url": "uicp://intent", "body": {"text": "more detail"}}}])).expect("intent");
        assert!(matches!(&out.effects[0], Effect::Intent(v) if v["text"] == "more detail"));
        let out = apply(&mut ui, json!([{"op": "api.call", "params": {"method": "POST", "url": "uicp://intent",
            "body": {"title": "Clarify", "text_prompt": "Which?", "fields": [{"name": "answer", "label": "Answer"}], "submit": "Go"}}}])).expect("clarifier");
        let id = out.results[0]["windowId"]
            .as_str()
            .expect("window")
            .to_string();
        let html = &ui.window(&id).expect("form window").content[0].html;
        assert!(
            html.contains("Which?")
                && html.contains("name=\"u-answer\"")
                && html.contains("{{form.answer}}"),
            "{html}"
        );
        let e = apply(&mut ui, json!([{"op": "api.call", "params": {"url": "uicp://intent", "body": {"text": "x", "fields": []}}}])).expect_err("both");
        assert_eq!(e.pointer, "/0/params/body/text");
        let out = apply(
            &mut ui,
            json!([{"op": "api.call", "params": {"url": "gopher://x"}}]),
        )
        .expect("no-op");
        assert_eq!(out.results[0]["ignored"], true);
    }
}
