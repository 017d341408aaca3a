//! The operations of seed 002 and their envelope: parsed from JSON in camelCase or
//! snake_case, checked against the seed's limits, with every problem reported as a JSON
//! pointer, the issues and a hint ([`Invalid`]).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Most operations in one batch.
pub const MAX_OPS_PER_BATCH: usize = 64;
/// Most bytes of HTML in one operation.
pub const MAX_HTML_PER_OP: usize = 64 * 1024;
/// Most bytes of HTML across a batch.
pub const MAX_HTML_PER_BATCH: usize = 128 * 1024;
/// Smallest window width or height, in pixels.
pub const MIN_WINDOW_PX: u32 = 120;
/// Largest window width or height, in pixels.
pub const MAX_WINDOW_PX: u32 = 20_000;
/// Longest id (window, component, state key, idempotency key).
pub const MAX_ID: usize = 128;

/// One problem, at a JSON pointer into what the caller sent.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Issue {
    pub pointer: String,
    pub message: String,
}

/// A batch that was refused whole (seed 002's `UICPValidationError`): nothing applied.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct Invalid {
    pub message: String,
    /// The first invalid field.
    pub pointer: String,
    pub issues: Vec<Issue>,
    /// What to change, derived from the first issue.
    pub hint: String,
}

impl Invalid {
    /// One issue at `pointer`.
    pub fn at(pointer: impl Into<String>, message: impl Into<String>) -> Invalid {
        Invalid::from_issues(vec![Issue {
            pointer: pointer.into(),
            message: message.into(),
        }])
    }

    fn from_issues(issues: Vec<Issue>) -> Invalid {
        let first = issues.first().cloned().unwrap_or(Issue {
            pointer: String::new(),
            message: "invalid".into(),
        });
        let field = first.pointer.rsplit('/').next().unwrap_or("").to_string();
        let hint = if field.is_empty() || field.chars().all(|c| c.is_ascii_digit()) {
            format!("fix the operation at {}: {}", first.pointer, first.message)
        } else {
            format!("fix `{field}` ({}): {}", first.pointer, first.message)
        };
        Invalid {
            message: format!("invalid UICP batch at {}: {}", first.pointer, first.message),
            pointer: first.pointer,
            issues,
            hint,
        }
    }
}

/// Preset window sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    Xs,
    Sm,
    Md,
    Lg,
    Xl,
}

impl Size {
    /// Width and height of a preset.
    pub fn pixels(self) -> (u32, u32) {
        match self {
            Size::Xs => (240, 180),
            Size::Sm => (360, 260),
            Size::Md => (520, 380),
            Size::Lg => (720, 520),
            Size::Xl => (960, 680),
        }
    }
}

/// `window.create`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WindowCreate {
    /// The window's id (one is made up when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// Pixels, at least 120.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Pixels, at least 120.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z_index: Option<i32>,
    /// A preset size, when width and height are not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
}

/// `window.update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WindowUpdate {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z_index: Option<i32>,
}

/// An id-only operation (`window.close`, `component.destroy`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ById {
    pub id: String,
}

/// `dom.set`, `dom.replace`, `dom.append`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Dom {
    pub window_id: String,
    /// A CSS selector inside the window (`#status`, `.list`), or `root` for the whole
    /// content area.
    pub target: String,
    /// At most 64 KB. Always sanitised on the server.
    pub html: String,
    /// Accepted for compatibility; sanitising cannot be turned off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanitize: Option<bool>,
}

/// `component.render`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ComponentRender {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub window_id: String,
    pub target: String,
    /// table, list, form, code, diff or markdown.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub props: Option<Value>,
}

/// `component.update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ComponentUpdate {
    pub id: String,
    pub props: Value,
}

/// Where a state value lives.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One window's (needs `windowId`).
    Window,
    /// The workspace's.
    Workspace,
    /// Shared by everything.
    Global,
}

/// `state.set`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StateSet {
    pub scope: Scope,
    pub key: String,
    pub value: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
    /// Milliseconds the value lives (a positive integer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
}

/// `state.get`, `state.watch`, `state.unwatch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StateKey {
    pub scope: Scope,
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
}

/// `api.call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApiCall {
    /// GET by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// `uicp://intent`, `tauri://fs/writeTextFile`, or an http(s) URL on a host the
    /// config allows.
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

/// `txn.cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TxnCancel {
    /// The transaction; without it, everything pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// One operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    WindowCreate(WindowCreate),
    WindowUpdate(WindowUpdate),
    WindowClose(ById),
    DomSet(Dom),
    DomReplace(Dom),
    DomAppend(Dom),
    ComponentRender(ComponentRender),
    ComponentUpdate(ComponentUpdate),
    ComponentDestroy(ById),
    StateSet(StateSet),
    StateGet(StateKey),
    StateWatch(StateKey),
    StateUnwatch(StateKey),
    ApiCall(ApiCall),
    TxnCancel(TxnCancel),
}

/// Every operation name, in the seed's order.
pub const OP_NAMES: &[&str] = &[
    "window.create",
    "window.update",
    "window.close",
    "dom.set",
    "dom.replace",
    "dom.append",
    "component.render",
    "component.update",
    "component.destroy",
    "state.set",
    "state.get",
    "state.watch",
    "state.unwatch",
    "api.call",
    "txn.cancel",
];

impl Op {
    /// The operation's name (`dom.set`).
    pub fn name(&self) -> &'static str {
        match self {
            Op::WindowCreate(_) => "window.create",
            Op::WindowUpdate(_) => "window.update",
            Op::WindowClose(_) => "window.close",
            Op::DomSet(_) => "dom.set",
            Op::DomReplace(_) => "dom.replace",
            Op::DomAppend(_) => "dom.append",
            Op::ComponentRender(_) => "component.render",
            Op::ComponentUpdate(_) => "component.update",
            Op::ComponentDestroy(_) => "component.destroy",
            Op::StateSet(_) => "state.set",
            Op::StateGet(_) => "state.get",
            Op::StateWatch(_) => "state.watch",
            Op::StateUnwatch(_) => "state.unwatch",
            Op::ApiCall(_) => "api.call",
            Op::TxnCancel(_) => "txn.cancel",
        }
    }

    /// The parameters as JSON (camelCase).
    pub fn params(&self) -> Value {
        let v = match self {
            Op::WindowCreate(p) => serde_json::to_value(p),
            Op::WindowUpdate(p) => serde_json::to_value(p),
            Op::WindowClose(p) | Op::ComponentDestroy(p) => serde_json::to_value(p),
            Op::DomSet(p) | Op::DomReplace(p) | Op::DomAppend(p) => serde_json::to_value(p),
            Op::ComponentRender(p) => serde_json::to_value(p),
            Op::ComponentUpdate(p) => serde_json::to_value(p),
            Op::StateSet(p) => serde_json::to_value(p),
            Op::StateGet(p) | Op::StateWatch(p) | Op::StateUnwatch(p) => serde_json::to_value(p),
            Op::ApiCall(p) => serde_json::to_value(p),
            Op::TxnCancel(p) => serde_json::to_value(p),
        };
        v.unwrap_or(Value::Null)
    }

    /// The window the operation is about, if any.
    pub fn window(&self) -> Option<&str> {
        match self {
            Op::WindowCreate(p) => p.id.as_deref(),
            Op::WindowUpdate(p) => Some(&p.id),
            Op::WindowClose(p) => Some(&p.id),
            Op::DomSet(p) | Op::DomReplace(p) | Op::DomAppend(p) => Some(&p.window_id),
            Op::ComponentRender(p) => Some(&p.window_id),
            Op::StateSet(p) => p.window_id.as_deref(),
            Op::StateGet(p) | Op::StateWatch(p) | Op::StateUnwatch(p) => p.window_id.as_deref(),
            _ => None,
        }
    }

    /// Bytes of HTML the operation carries.
    pub fn html_len(&self) -> usize {
        match self {
            Op::DomSet(p) | Op::DomReplace(p) | Op::DomAppend(p) => p.html.len(),
            _ => 0,
        }
    }

    /// Parse `params` as operation `name`; issues point under `at`.
    pub fn parse(name: &str, params: Value, at: &str) -> Result<Op, Invalid> {
        let params = normalise(params);
        let op = match name {
            "window.create" => Op::WindowCreate(typed(params, at)?),
            "window.update" => Op::WindowUpdate(typed(params, at)?),
            "window.close" => Op::WindowClose(typed(params, at)?),
            "dom.set" => Op::DomSet(typed(params, at)?),
            "dom.replace" => Op::DomReplace(typed(params, at)?),
            "dom.append" => Op::DomAppend(typed(params, at)?),
            "component.render" => Op::ComponentRender(typed(params, at)?),
            "component.update" => Op::ComponentUpdate(typed(params, at)?),
            "component.destroy" => Op::ComponentDestroy(typed(params, at)?),
            "state.set" => Op::StateSet(typed(params, at)?),
            "state.get" => Op::StateGet(typed(params, at)?),
            "state.watch" => Op::StateWatch(typed(params, at)?),
            "state.unwatch" => Op::StateUnwatch(typed(params, at)?),
            "api.call" => Op::ApiCall(typed(params, at)?),
            "txn.cancel" => Op::TxnCancel(typed(params, at)?),
            other => {
                return Err(Invalid::at(
                    format!("{}/op", at.trim_end_matches("/params")),
                    format!(
                        "unknown operation `{other}`; one of: {}",
                        OP_NAMES.join(", ")
                    ),
                ));
            }
        };
        op.check(at)?;
        Ok(op)
    }

    /// The seed's limits beyond the schema.
    fn check(&self, at: &str) -> Result<(), Invalid> {
        let mut issues = Vec::new();
        let mut id = |field: &str, v: &str| {
            if let Some(m) = bad_id(v) {
                issues.push(Issue {
                    pointer: format!("{at}/{field}"),
                    message: m,
                });
            }
        };
        match self {
            Op::WindowCreate(p) => {
                if let Some(i) = &p.id {
                    id("id", i);
                }
            }
            Op::WindowUpdate(p) => id("id", &p.id),
            Op::WindowClose(p) | Op::ComponentDestroy(p) => id("id", &p.id),
            Op::DomSet(p) | Op::DomReplace(p) | Op::DomAppend(p) => id("windowId", &p.window_id),
            Op::ComponentRender(p) => {
                id("windowId", &p.window_id);
                if let Some(i) = &p.id {
                    id("id", i);
                }
            }
            Op::ComponentUpdate(p) => id("id", &p.id),
            Op::StateSet(p) => {
                id("key", &p.key);
                if let Some(w) = &p.window_id {
                    id("windowId", w);
                }
            }
            Op::StateGet(p) | Op::StateWatch(p) | Op::StateUnwatch(p) => {
                id("key", &p.key);
                if let Some(w) = &p.window_id {
                    id("windowId", w);
                }
            }
            Op::ApiCall(_) | Op::TxnCancel(_) => {}
        }
        let (width, height) = match self {
            Op::WindowCreate(p) => (p.width, p.height),
            Op::WindowUpdate(p) => (p.width, p.height),
            _ => (None, None),
        };
        for (field, v) in [("width", width), ("height", height)] {
            if let Some(v) = v
                && !(MIN_WINDOW_PX..=MAX_WINDOW_PX).contains(&v)
            {
                issues.push(Issue {
                    pointer: format!("{at}/{field}"),
                    message: format!(
                        "{field} must be {MIN_WINDOW_PX} to {MAX_WINDOW_PX} pixels, not {v}"
                    ),
                });
            }
        }
        match self {
            Op::DomSet(p) | Op::DomReplace(p) | Op::DomAppend(p) => {
                if p.html.len() > MAX_HTML_PER_OP {
                    issues.push(Issue {
                        pointer: format!("{at}/html"),
                        message: format!(
                            "{} bytes of HTML is over the {MAX_HTML_PER_OP}-byte limit per operation",
                            p.html.len()
                        ),
                    });
                }
                check_target(&p.target, &format!("{at}/target"), &mut issues);
            }
            Op::ComponentRender(p) => check_target(&p.target, &format!("{at}/target"), &mut issues),
            Op::StateSet(p) => {
                if p.ttl_ms == Some(0) {
                    issues.push(Issue {
                        pointer: format!("{at}/ttlMs"),
                        message: "ttlMs must be a positive integer".into(),
                    });
                }
                if p.scope == Scope::Window && p.window_id.is_none() {
                    issues.push(Issue {
                        pointer: format!("{at}/windowId"),
                        message: "window-scoped state needs windowId".into(),
                    });
                }
            }
            Op::StateGet(p) | Op::StateWatch(p) | Op::StateUnwatch(p)
                if p.scope == Scope::Window && p.window_id.is_none() =>
            {
                issues.push(Issue {
                    pointer: format!("{at}/windowId"),
                    message: "window-scoped state needs windowId".into(),
                });
            }
            Op::ApiCall(p) => {
                let m = p.method.as_deref().unwrap_or("GET");
                if !["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"].contains(&m) {
                    issues.push(Issue {
                        pointer: format!("{at}/method"),
                        message: format!(
                            "method `{m}` is not one of GET, POST, PUT, PATCH, DELETE, HEAD"
                        ),
                    });
                }
                if p.url.is_empty() || p.url.len() > 2048 {
                    issues.push(Issue {
                        pointer: format!("{at}/url"),
                        message: "url must be 1 to 2048 characters".into(),
                    });
                }
            }
            _ => {}
        }
        if issues.is_empty() {
            Ok(())
        } else {
            Err(Invalid::from_issues(issues))
        }
    }
}

fn bad_id(v: &str) -> Option<String> {
    if v.is_empty() || v.len() > MAX_ID {
        return Some(format!("must be 1 to {MAX_ID} characters"));
    }
    if !v
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
    {
        return Some(format!(
            "`{v}` may only hold letters, digits, `-`, `_`, `.` and `:`"
        ));
    }
    None
}

/// A target is a plain CSS selector: no control characters, no quotes that could end an
/// attribute the page builds, at most 256 characters.
fn check_target(t: &str, pointer: &str, issues: &mut Vec<Issue>) {
    if t.is_empty() || t.len() > 256 || t.chars().any(|c| c.is_control() || c == '`') {
        issues.push(Issue {
            pointer: pointer.into(),
            message:
                "target must be a CSS selector of 1 to 256 characters (`#id`, `.class`, `root`)"
                    .into(),
        });
    }
}

fn typed<T: DeserializeOwned>(params: Value, at: &str) -> Result<T, Invalid> {
    serde_path_to_error::deserialize::<_, T>(params).map_err(|e| {
        let message = e.inner().to_string();
        let mut pointer = at.to_string();
        for seg in e.path().iter() {
            use serde_path_to_error::Segment;
            match seg {
                Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
                Segment::Map { key } | Segment::Enum { variant: key } => {
                    pointer.push_str(&format!("/{key}"))
                }
                Segment::Unknown => {}
            }
        }
        // A missing field is named in the message, not the path.
        if message.starts_with("missing field")
            && let Some(field) = message.split('`').nth(1)
        {
            pointer.push_str(&format!("/{field}"));
        }
        Invalid::at(pointer, message)
    })
}

/// `snake_case` keys become `camelCase` (seed 002 accepts both); values are left alone.
pub fn normalise(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (camel(&k), v))
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

fn camel(k: &str) -> String {
    if !k.contains('_') {
        return k.to_string();
    }
    let mut out = String::with_capacity(k.len());
    let mut up = false;
    for c in k.chars() {
        if c == '_' {
            up = !out.is_empty();
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// An operation with its envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub id: Option<String>,
    pub idempotency_key: Option<String>,
    pub trace_id: Option<String>,
    pub txn_id: Option<String>,
    pub window_id: Option<String>,
    pub op: Op,
}

impl Envelope {
    /// Parse one envelope; issues point under `at` (`/3` for the fourth of a batch).
    pub fn parse(v: Value, at: &str) -> Result<Envelope, Invalid> {
        let Value::Object(m) = normalise(v) else {
            return Err(Invalid::at(
                at,
                "an operation is a JSON object {op, params}",
            ));
        };
        let mut name = None;
        let mut params = Value::Object(Map::new());
        let mut env = (None, None, None, None, None);
        for (k, v) in m {
            let field = |v: Value| match v {
                Value::String(s) if !s.is_empty() && s.len() <= MAX_ID * 2 => Ok(Some(s)),
                Value::Null => Ok(None),
                _ => Err(Invalid::at(
                    format!("{at}/{k}"),
                    format!("{k} must be a string of 1 to {} characters", MAX_ID * 2),
                )),
            };
            match k.as_str() {
                "op" => match v {
                    Value::String(s) => name = Some(s),
                    _ => return Err(Invalid::at(format!("{at}/op"), "op must be a string")),
                },
                "params" => params = v,
                "id" => env.0 = field(v)?,
                "idempotencyKey" => env.1 = field(v)?,
                "traceId" => env.2 = field(v)?,
                "txnId" => env.3 = field(v)?,
                "windowId" => env.4 = field(v)?,
                other => {
                    return Err(Invalid::at(
                        format!("{at}/{other}"),
                        format!(
                            "unknown envelope field `{other}` (id, idempotencyKey, traceId, txnId, windowId, op, params)"
                        ),
                    ));
                }
            }
        }
        let Some(name) = name else {
            return Err(Invalid::at(format!("{at}/op"), "missing `op`"));
        };
        // The envelope's windowId mirrors the params' (seed 002): fill it in when absent.
        if let (Some(w), Value::Object(p)) = (&env.4, &mut params)
            && !p.contains_key("windowId")
            && !p.contains_key("window_id")
            && matches!(
                name.as_str(),
                "dom.set" | "dom.replace" | "dom.append" | "component.render"
            )
        {
            p.insert("windowId".into(), json!(w));
        }
        let op = Op::parse(&name, params, &format!("{at}/params"))?;
        Ok(Envelope {
            id: env.0,
            idempotency_key: env.1,
            trace_id: env.2,
            txn_id: env.3,
            window_id: env.4.or_else(|| op.window().map(str::to_string)),
            op,
        })
    }

    /// The envelope as JSON, `{op, params}` plus the fields that are set.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        for (k, v) in [
            ("id", &self.id),
            ("idempotencyKey", &self.idempotency_key),
            ("traceId", &self.trace_id),
            ("txnId", &self.txn_id),
            ("windowId", &self.window_id),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        m.insert("op".into(), json!(self.op.name()));
        m.insert("params".into(), self.op.params());
        Value::Object(m)
    }
}

/// Parse a batch: every envelope, the seed's budgets, all or nothing.
pub fn parse_batch(batch: Value) -> Result<Vec<Envelope>, Invalid> {
    let items = match batch {
        Value::Array(a) => a,
        obj @ Value::Object(_) => vec![obj],
        _ => return Err(Invalid::at("", "a batch is a JSON array of operations")),
    };
    if items.is_empty() {
        return Err(Invalid::at("", "the batch is empty"));
    }
    if items.len() > MAX_OPS_PER_BATCH {
        return Err(Invalid::at(
            format!("/{MAX_OPS_PER_BATCH}"),
            format!(
                "{} operations is over the limit of {MAX_OPS_PER_BATCH} per batch; split it",
                items.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    let mut total = 0;
    for (i, v) in items.into_iter().enumerate() {
        let env = Envelope::parse(v, &format!("/{i}"))?;
        total += env.op.html_len();
        if total > MAX_HTML_PER_BATCH {
            return Err(Invalid::at(
                format!("/{i}/params/html"),
                format!(
                    "the batch's HTML reaches {total} bytes, over the {MAX_HTML_PER_BATCH}-byte limit per batch; split it"
                ),
            ));
        }
        out.push(env);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_and_camel_are_one() {
        let a = parse_batch(json!([{"op": "window.create", "idempotency_key": "k1",
            "params": {"id": "w1", "title": "T", "z_index": 3}}]))
        .expect("parses");
        let b = parse_batch(json!([{"op": "window.create", "idempotencyKey": "k1",
            "params": {"id": "w1", "title": "T", "zIndex": 3}}]))
        .expect("parses");
        assert_eq!(a, b);
        assert_eq!(a[0].idempotency_key.as_deref(), Some("k1"));
        assert_eq!(a[0].window_id.as_deref(), Some("w1"));
    }

    #[test]
    fn errors_point_at_the_field() {
        let e = parse_batch(json!([
            {"op": "window.create", "params": {"title": "ok"}},
            {"op": "window.create", "params": {"title": "small", "width": 100}}
        ]))
        .expect_err("too small");
        assert_eq!(e.pointer, "/1/params/width");
        assert!(e.hint.contains("width"), "{}", e.hint);
        let e = parse_batch(json!([{"op": "state.set", "params": {"scope": "global", "key": "k", "value": 1, "ttlMs": 0}}]))
            .expect_err("ttl");
        assert_eq!(e.pointer, "/0/params/ttlMs");
        let e =
            parse_batch(json!([{"op": "dom.set", "params": {"windowId": "w", "target": "#a"}}]))
                .expect_err("missing html");
        assert_eq!(e.pointer, "/0/params/html");
        let e = parse_batch(json!([{"op": "window.create", "params": {"title": 5}}]))
            .expect_err("wrong type");
        assert_eq!(e.pointer, "/0/params/title");
        let e = parse_batch(json!([{"op": "window.explode", "params": {}}])).expect_err("unknown");
        assert_eq!(e.pointer, "/0/op");
        let e = parse_batch(json!([{"op": "dom.set", "params": {"windowId": "w", "target": "#a", "html": "x", "bogus": 1}}]))
            .expect_err("unknown field");
        assert_eq!(e.pointer, "/0/params/bogus");
    }

    #[test]
    fn budgets() {
        let op = |html: String| json!({"op": "dom.append", "params": {"windowId": "w", "target": "root", "html": html}});
        let e = parse_batch(Value::Array(vec![op("x".into()); 65])).expect_err("65 ops");
        assert!(e.message.contains("64"), "{}", e.message);
        let e = parse_batch(json!([op("x".repeat(65 * 1024))])).expect_err("big op");
        assert_eq!(e.pointer, "/0/params/html");
        let e = parse_batch(json!([
            op("x".repeat(60 * 1024)),
            op("x".repeat(60 * 1024)),
            op("x".repeat(20 * 1024))
        ]))
        .expect_err("big batch");
        assert_eq!(e.pointer, "/2/params/html");
        assert!(
            parse_batch(json!([
                op("x".repeat(60 * 1024)),
                op("x".repeat(60 * 1024))
            ]))
            .is_ok()
        );
    }
}
