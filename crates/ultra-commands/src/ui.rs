//! UICP (seed 002) as commands: `ui.batch` applies a batch of envelopes (the agents' main
//! entry, tool `ui_batch`), each operation is also a command of its own (`window.create`,
//! `dom.set`, ...), and `ui.snapshot` is what a page draws from. The model, validation and
//! sanitiser live in `ultra-ui`; here the model is kept with its journal in the state
//! directory (one writer: a lock on the journal), mutations are broadcast as `ui.applied`,
//! intents as `ui.intent`, watched state as `state.changed`, and the effects that touch
//! files or the network are decided: a file write is a confined workspace write, an http(s)
//! call is refused unless config `ui.httpAllow` names its host.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_ui::model::{Effect, Mutation};
use ultra_ui::ops::{self, Envelope, Invalid, Op};

use ultra_services::Services;
use ultra_services::util::NoArgs;

/// Register `ui.batch`, `ui.snapshot` and one command per operation.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(Batch)?;
    r.register(Snapshot)?;
    macro_rules! op {
        ($name:literal, $variant:ident, $params:ty, $summary:literal, $args:literal) => {
            r.register(OpCommand::<$params>::new(
                $name,
                $summary,
                $args,
                Op::$variant,
            ))?;
        };
    }
    op!(
        "window.create",
        WindowCreate,
        ops::WindowCreate,
        "Open a window (title; x, y, width and height in pixels, at least 120; or a preset size xs..xl).",
        r#"{"id": "draft", "title": "Draft", "size": "sm"}"#
    );
    op!(
        "window.update",
        WindowUpdate,
        ops::WindowUpdate,
        "Move, resize or retitle a window (created if missing).",
        r#"{"id": "notes", "title": "Notes (2)"}"#
    );
    op!(
        "window.close",
        WindowClose,
        ops::ById,
        "Close a window with its components and window state.",
        r#"{"id": "notes"}"#
    );
    op!(
        "dom.set",
        DomSet,
        ops::Dom,
        "Replace a target's content inside a window with sanitised HTML (at most 64 KB); `root` is the whole window.",
        r#"{"windowId": "notes", "target": "root", "html": "<p>Hello</p>"}"#
    );
    op!(
        "dom.replace",
        DomReplace,
        ops::Dom,
        "The same as dom.set.",
        r#"{"windowId": "notes", "target": "root", "html": "<p>Hi</p>"}"#
    );
    op!(
        "dom.append",
        DomAppend,
        ops::Dom,
        "Append sanitised HTML at the end of a target.",
        r#"{"windowId": "notes", "target": "root", "html": "<p>More</p>"}"#
    );
    op!(
        "component.render",
        ComponentRender,
        ops::ComponentRender,
        "Render a component (table, list, form, code, diff, markdown) into a target.",
        r#"{"id": "plan", "windowId": "notes", "target": "root", "type": "list", "props": {"items": ["write tests"]}}"#
    );
    op!(
        "component.update",
        ComponentUpdate,
        ops::ComponentUpdate,
        "Give a component new props.",
        r#"{"id": "todo", "props": {"items": []}}"#
    );
    op!(
        "component.destroy",
        ComponentDestroy,
        ops::ById,
        "Remove a component.",
        r#"{"id": "todo"}"#
    );
    op!(
        "state.set",
        StateSet,
        ops::StateSet,
        "Set a state value (scope window, workspace or global; ttlMs a positive integer).",
        r#"{"scope": "global", "key": "theme", "value": "dark"}"#
    );
    op!(
        "state.get",
        StateGet,
        ops::StateKey,
        "Read a state value.",
        r#"{"scope": "global", "key": "theme"}"#
    );
    op!(
        "state.watch",
        StateWatch,
        ops::StateKey,
        "Receive state.changed events for a key.",
        r#"{"scope": "global", "key": "theme"}"#
    );
    op!(
        "state.unwatch",
        StateUnwatch,
        ops::StateKey,
        "Stop receiving state.changed for a key.",
        r#"{"scope": "global", "key": "theme"}"#
    );
    op!(
        "api.call",
        ApiCall,
        ops::ApiCall,
        "uicp://intent (text, or a clarifier form), tauri://fs/writeTextFile (a workspace write), or http(s) to a host config ui.httpAllow names.",
        r#"{"method": "POST", "url": "uicp://intent", "body": {"text": "use the blue theme"}}"#
    );
    op!(
        "txn.cancel",
        TxnCancel,
        ops::TxnCancel,
        "Cancel a transaction: its operations not yet applied are dropped.",
        r#"{"id": "t1"}"#
    );
    Ok(())
}

use ultra_services::ui::now_ms;

/// A refused batch as a wire error: the pointer, the issues and a hint (seed 002).
fn invalid(e: Invalid) -> CommandError {
    let hint = e.hint.clone();
    CommandError::new(ErrorCode::InvalidArguments, e.message.clone())
        .with_details(json!({
            "error": "uicp_validation",
            "pointer": e.pointer,
            "issues": e.issues,
            "hint": e.hint,
        }))
        .with_suggestion(hint)
}

/// What applying a batch gave the caller.
#[derive(Debug, serde::Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    /// One result per operation (`duplicate: true` for a repeated idempotency key).
    pub results: Vec<Value>,
    /// How many changes the screen took.
    pub changes: usize,
}

/// Apply `batch` for the caller: the model and journal under one lock, then the effects.
fn apply(cx: &mut Cx<'_, Services>, batch: Vec<Envelope>) -> Result<Applied, CommandError> {
    let now = now_ms();
    // When the batch reached the server, in epoch milliseconds with a fraction: pages
    // measure how long it took to show (the UI benchmark).
    let received_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0);
    let trace: Option<String> = batch.iter().find_map(|e| e.trace_id.clone());
    let (mut out, watched) = cx.services.ui().with(|o| -> Result<_, CommandError> {
        let out = o.ui.apply(&batch, now).map_err(invalid)?;
        o.journal
            .append(&out.mutations, &o.ui, now)
            .map_err(|e| CommandError::new(ErrorCode::IoError, format!("UI journal: {e}")))?;
        for e in &out.effects {
            if let Effect::Watch { id, on } = e {
                let who = cx
                    .source
                    .session_id
                    .clone()
                    .or_else(|| cx.source.agent_id.clone())
                    .unwrap_or_else(|| "default".into());
                let set = o.watchers.entry(id.clone()).or_default();
                if *on {
                    set.insert(who);
                } else {
                    set.remove(&who);
                }
            }
        }
        let watched: Vec<(Mutation, Vec<String>)> = out
            .mutations
            .iter()
            .filter_map(|m| match m {
                Mutation::State {
                    scope,
                    window_id,
                    key,
                    ..
                } => o
                    .watchers
                    .get(&(*scope, window_id.clone(), key.clone()))
                    .filter(|w| !w.is_empty())
                    .map(|w| (m.clone(), w.iter().cloned().collect())),
                _ => None,
            })
            .collect();
        Ok((out, watched))
    })??;
    if !out.mutations.is_empty() {
        let data =
            json!({ "mutations": out.mutations, "traceId": trace, "receivedAt": received_at });
        cx.events.emit("ui.applied", data, Some(cx.source));
    }
    for (m, watchers) in watched {
        if let Mutation::State {
            scope,
            window_id,
            key,
            entry,
        } = m
        {
            cx.events.emit(
                "state.changed",
                json!({"scope": scope, "windowId": window_id, "key": key, "value": entry.value, "watchers": watchers}),
                Some(cx.source),
            );
        }
    }
    let effects = std::mem::take(&mut out.effects);
    for e in effects {
        match e {
            Effect::Intent(data) => cx.events.emit("ui.intent", data, Some(cx.source)),
            Effect::WriteFile { path, contents } => {
                crate::file::CreateFile.run(
                    cx,
                    crate::file::CreateFileArgs {
                        path,
                        content: contents,
                        overwrite: true,
                        open: false,
                        expected_hash: None,
                    },
                )?;
            }
            Effect::Http { op, call } => {
                let host = host_of(&call.url);
                let allowed = cx
                    .services
                    .config
                    .ui
                    .http_allow
                    .iter()
                    .any(|h| Some(h.as_str()) == host.as_deref());
                if allowed {
                    cx.events.emit(
                        "ui.fetch",
                        json!({"method": call.method.as_deref().unwrap_or("GET"), "url": call.url,
                               "headers": call.headers, "body": call.body}),
                        Some(cx.source),
                    );
                } else if let Some(r) = out.results.get_mut(op) {
                    r["refused"] = json!(format!(
                        "http(s) calls are off unless config ui.httpAllow names the host ({})",
                        host.unwrap_or_default()
                    ));
                }
            }
            Effect::Watch { .. } => {}
        }
    }
    Ok(Applied {
        changes: out.mutations.len(),
        results: out.results,
    })
}

/// The host of an http(s) URL.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| format!("{h}]"))?
    } else {
        host.split(':').next()?.to_string()
    };
    Some(host.to_ascii_lowercase())
}

/// Risk of a batch: files written by `tauri://fs/writeTextFile` are destructive, http(s)
/// reaches out; everything else changes only the screen.
fn batch_annotations(batch: &[Envelope]) -> Annotations {
    let mut a = Annotations::default();
    for e in batch {
        if let Op::ApiCall(c) = &e.op {
            if c.url.starts_with("tauri://fs/") {
                a.destructive = true;
            }
            if c.url.starts_with("http://") || c.url.starts_with("https://") {
                a.open_world = true;
            }
        }
    }
    a
}

/// Arguments of `ui.batch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchArgs {
    /// Up to 64 envelopes `{op, params, idempotencyKey?, traceId?, txnId?, windowId?}`,
    /// camelCase or snake_case; at most 64 KB of HTML each and 128 KB in all.
    pub batch: Value,
}

/// `ui.batch`.
pub struct Batch;

impl Command<Services> for Batch {
    type Args = BatchArgs;
    type Output = Applied;

    const SPEC: CommandSpec = CommandSpec::new(
        "ui.batch",
        "UI: Apply Batch",
        "UI",
        "Apply a UICP batch (seed 002) to the web UI's windows: window.create/update/close, dom.set/replace/append (HTML sanitised), component.render/update/destroy (table, list, form, code, diff, markdown), state.set/get/watch/unwatch, api.call (uicp://intent), txn.cancel. One invalid operation refuses the whole batch (JSON pointer, issues, hint); a repeated idempotencyKey applies once. In pages: data-state-scope/data-state-key bind inputs to state; data-command on a button or form sends a batch ({{value}}, {{form.NAME}}, ...).",
    )
    .touches(Touches::WRITE.and(Touches::NETWORK))
    .tool_name("ui_batch")
    .examples(&[
        Example {
            description: "Open a window and fill it",
            args: r#"{"batch": [{"op": "window.create", "params": {"id": "w1", "title": "Status"}}, {"op": "dom.set", "params": {"windowId": "w1", "target": "root", "html": "<p>Ready</p><script>x</script>"}}]}"#,
            expect: Some(r#"{"results": [{"op": "window.create", "windowId": "w1"}, {"op": "dom.set", "windowId": "w1"}], "changes": 2}"#),
            ..Example::EMPTY
        },
        Example {
            description: "A window smaller than 120 px is refused, with where and why",
            args: r#"{"batch": [{"op": "window.create", "params": {"title": "Tiny", "width": 80}}]}"#,
            error: Some("INVALID_ARGUMENTS"),
            ..Example::EMPTY
        },
    ]);

    fn annotations(&self, a: &BatchArgs) -> Annotations {
        ops::parse_batch(a.batch.clone())
            .map(|b| batch_annotations(&b))
            .unwrap_or_default()
    }

    fn precheck(
        &self,
        _services: &Services,
        _source: &ultra_protocol::Source,
        a: &BatchArgs,
    ) -> Result<(), CommandError> {
        ops::parse_batch(a.batch.clone())
            .map(|_| ())
            .map_err(invalid)
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: BatchArgs) -> Result<Applied, CommandError> {
        let batch = ops::parse_batch(a.batch).map_err(invalid)?;
        apply(cx, batch)
    }
}

/// One operation as its own command.
pub struct OpCommand<P> {
    spec: &'static CommandSpec,
    wrap: fn(P) -> Op,
}

impl<P> OpCommand<P> {
    fn new(
        name: &'static str,
        summary: &'static str,
        example: &'static str,
        wrap: fn(P) -> Op,
    ) -> OpCommand<P> {
        let title: &'static str = Box::leak(format!("UI: {name}").into_boxed_str());
        let examples: &'static [Example] = Box::leak(Box::new([Example {
            description: summary,
            args: example,
            setup: &[(
                "ui.batch",
                r#"{"batch": [{"op": "window.create", "params": {"id": "notes", "title": "Notes"}}, {"op": "component.render", "params": {"id": "todo", "windowId": "notes", "target": "root", "type": "list", "props": {"items": []}}}]}"#,
            )],
            ..Example::EMPTY
        }]));
        // `api.call` writes workspace files (tauri://fs/writeTextFile) and fetches over
        // HTTP; the other operations change only the UI's own state.
        let touches = if name == "api.call" {
            Touches::WRITE.and(Touches::NETWORK)
        } else {
            Touches::NOTHING
        };
        let spec = CommandSpec::new(name, title, "UI", summary)
            .not_ai_exposed()
            .examples(examples)
            .touches(touches);
        OpCommand {
            spec: Box::leak(Box::new(spec)),
            wrap,
        }
    }
}

impl<P> Command<Services> for OpCommand<P>
where
    P: DeserializeOwned + JsonSchema + serde::Serialize + Send + 'static,
{
    type Args = P;
    type Output = Applied;

    fn spec(&self) -> &'static CommandSpec {
        self.spec
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: P) -> Result<Applied, CommandError> {
        let op = (self.wrap)(args);
        // The typed path meets the batch path: the same checks, through the envelope.
        let env = Envelope::parse(json!({"op": op.name(), "params": op.params()}), "/0")
            .map_err(invalid)?;
        apply(cx, vec![env])
    }
}

/// `ui.snapshot`.
pub struct Snapshot;

impl Command<Services> for Snapshot {
    type Args = NoArgs;
    type Output = Value;

    const SPEC: CommandSpec = CommandSpec::new(
        "ui.snapshot",
        "UI: Snapshot",
        "UI",
        "The web UI's current screen: every window (position, size, title) with its sanitised content in order, and the live state values. Pages draw from it, then apply ui.applied events.",
    )
    .touches(Touches::NOTHING)
    .tool_name("ui_snapshot")
    .read_only()
    .idempotent()
    .examples(&[Example {
        description: "Nothing open yet",
        args: "{}",
        expect: Some(r#"{"windows": [], "state": []}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Value, CommandError> {
        cx.services.ui().snapshot()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hosts() {
        assert_eq!(
            super::host_of("https://API.example.com:8443/x?y").as_deref(),
            Some("api.example.com")
        );
        assert_eq!(super::host_of("http://user@h/x").as_deref(), Some("h"));
        assert_eq!(super::host_of("nope"), None);
    }
}
