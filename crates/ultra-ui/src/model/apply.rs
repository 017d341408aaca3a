//! One function per UICP operation: each checks its operation against the model and
//! proposes mutations (and effects) in `out`, returning what the result adds to `{op}`.

use serde_json::{Value, json};

use super::{
    Component, Effect, Entry, MAX_PIECES, MAX_STATE, MAX_STATE_BYTES, MAX_STATE_VALUE,
    MAX_TOTAL_BYTES, MAX_WINDOW_BYTES, MAX_WINDOWS, Mutation, Outcome, Piece, Ui, Window, json_len,
    state_id,
};
use crate::components;
use crate::ops::{
    ById, ComponentRender, ComponentUpdate, Dom, Invalid, Op, Size, StateKey, StateSet, TxnCancel,
    WindowCreate, WindowUpdate,
};
use crate::sanitize;

/// The refusal of an operation naming a `what` (window, component) that is not there.
fn missing(at: &str, what: &str, id: &str) -> Invalid {
    Invalid::at(format!("{at}/id"), format!("no {what} `{id}`"))
}

/// A result: `{op}` and what the operation adds.
fn with_op(name: &str, extra: Value) -> Value {
    let mut v = json!({"op": name});
    if let (Some(m), Value::Object(e)) = (v.as_object_mut(), extra) {
        m.extend(e);
    }
    v
}

impl Ui {
    /// Apply the batch's `index`th operation; problems point under `/index/params`.
    pub(super) fn apply_one(
        &mut self,
        op: &Op,
        index: usize,
        now: u64,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
        let at = &format!("/{index}/params");
        let extra = match op {
            Op::WindowCreate(p) => self.window_create(p, at, out)?,
            Op::WindowUpdate(p) => self.window_update(p, at, out)?,
            Op::WindowClose(p) => self.window_close(p, at, out)?,
            Op::DomSet(p) | Op::DomReplace(p) | Op::DomAppend(p) => {
                self.dom(op.name(), p, at, out)?
            }
            Op::ComponentRender(p) => self.component_render(p, at, out)?,
            Op::ComponentUpdate(p) => self.component_update(p, at, out)?,
            Op::ComponentDestroy(p) => self.component_destroy(p, at, out)?,
            Op::StateSet(p) => self.state_set(p, now, at, out)?,
            Op::StateGet(p) => self.state_get(p, now),
            Op::StateWatch(p) => state_watch(p, true, out),
            Op::StateUnwatch(p) => state_watch(p, false, out),
            Op::ApiCall(p) => self.api_call(p, index, at, out)?,
            Op::TxnCancel(p) => txn_cancel(p, out),
        };
        Ok(with_op(op.name(), extra))
    }

    /// `window.create`: a new window (an existing id is refused).
    fn window_create(
        &mut self,
        p: &WindowCreate,
        at: &str,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
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
        Ok(json!({"windowId": id}))
    }

    /// `window.update`: move, resize or retitle a window (made if missing).
    fn window_update(
        &mut self,
        p: &WindowUpdate,
        at: &str,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
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
        Ok(json!({"windowId": p.id}))
    }

    /// `window.close`: an existing window goes, with its components and window state.
    fn window_close(&mut self, p: &ById, at: &str, out: &mut Outcome) -> Result<Value, Invalid> {
        if self.window(&p.id).is_none() {
            return Err(missing(at, "window", &p.id));
        }
        out.mutations
            .push(Mutation::WindowClose { id: p.id.clone() });
        Ok(json!({"windowId": p.id}))
    }

    /// `dom.set`, `dom.replace`, `dom.append` (`name`): sanitised markup for a target; a
    /// set or replace supersedes what the target held.
    fn dom(&mut self, name: &str, p: &Dom, at: &str, out: &mut Outcome) -> Result<Value, Invalid> {
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
        Ok(json!({"windowId": p.window_id}))
    }

    /// `component.render`: a new component's markup in a window.
    fn component_render(
        &mut self,
        p: &ComponentRender,
        at: &str,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
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
        Ok(json!({"componentId": id, "windowId": p.window_id}))
    }

    /// `component.update`: new props, re-rendered in place.
    fn component_update(
        &mut self,
        p: &ComponentUpdate,
        at: &str,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
        let Some(c) = self.components.get(&p.id).cloned() else {
            return Err(missing(at, "component", &p.id));
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
        Ok(json!({"componentId": p.id}))
    }

    /// `component.destroy`: an existing component and its markup go.
    fn component_destroy(
        &mut self,
        p: &ById,
        at: &str,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
        if !self.components.contains_key(&p.id) {
            return Err(missing(at, "component", &p.id));
        }
        out.mutations
            .push(Mutation::ComponentRemove { id: p.id.clone() });
        Ok(json!({"componentId": p.id}))
    }

    /// `state.set`: a value (with an optional time to live) within the state budgets.
    fn state_set(
        &mut self,
        p: &StateSet,
        now: u64,
        at: &str,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
        let size = json_len(&p.value);
        if size > MAX_STATE_VALUE {
            return Err(Invalid::at(
                format!("{at}/value"),
                format!("a state value of {size} bytes is over the {MAX_STATE_VALUE}-byte limit"),
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
        Ok(json!({}))
    }

    /// `state.get`: the live value, if any.
    fn state_get(&self, p: &StateKey, now: u64) -> Value {
        let id = state_id(p.scope, p.window_id.as_deref(), &p.key);
        let value = self
            .state
            .get(&id)
            .filter(|e| e.expires_at.is_none_or(|t| t > now))
            .map(|e| e.value.clone());
        json!({"found": value.is_some(), "value": value})
    }

    /// The safety net: a window an operation names but that does not exist is created
    /// (and the creation journaled, so a replay builds the same screen).
    fn ensure_window(&mut self, id: &str, out: &mut Outcome) -> Result<(), Invalid> {
        if self.window(id).is_some() {
            return Ok(());
        }
        let p = WindowCreate {
            id: Some(id.to_string()),
            title: id.to_string(),
            ..WindowCreate::default()
        };
        self.open_window(&p, "", true, out)
    }

    /// Open a window now, within the batch, so later operations see it (journaled like
    /// any other mutation).
    pub(super) fn open_window(
        &mut self,
        p: &WindowCreate,
        at: &str,
        synthetic: bool,
        out: &mut Outcome,
    ) -> Result<(), Invalid> {
        let window = self.new_window(p, at)?;
        let m = Mutation::WindowOpen { window, synthetic };
        self.mutate(&m);
        out.mutations.push(m);
        Ok(())
    }

    /// A window from `p`, placed and sized by default where it does not say; refused past
    /// [`MAX_WINDOWS`].
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
}

/// `state.watch` (`on`) and `state.unwatch`: the caller's subscription, an effect.
fn state_watch(p: &StateKey, on: bool, out: &mut Outcome) -> Value {
    let id = state_id(p.scope, p.window_id.as_deref(), &p.key);
    out.effects.push(Effect::Watch { id, on });
    json!({})
}

/// `txn.cancel`: later operations of the transaction are skipped.
fn txn_cancel(p: &TxnCancel, out: &mut Outcome) -> Value {
    out.mutations
        .push(Mutation::TxnCancelled { id: p.id.clone() });
    json!({"txnId": p.id})
}
