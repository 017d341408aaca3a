//! What the view is now: `ultra.getViewState`, and the context keys when-clauses read
//! (`ultra.setContext`, `ultra.inspectContextKeys`).

use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::{CommandError, ErrorCode, SourceKind};

use super::service::{DERIVED, context_keys};
use super::{ContextKeys, HELLO, OPEN, SetContextArgs, Tab, ViewInfo};
use ultra_services::Services;
use ultra_services::util::NoArgs;

/// `ultra.getViewState`.
pub struct GetViewState;

impl Command<Services> for GetViewState {
    type Args = NoArgs;
    type Output = ViewInfo;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.getViewState",
        "View: Get View State",
        "View",
        "What the editor shows: tabs (open buffers, dirty, active), sidebar, agent pane, split, palette, the latest progress report, and every context key.",
    )
    .touches(Touches::READ)
    .read_only()
    .quiet()
    .examples(&[Example {
        description: "One file open",
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"tabs": [{"path": "src/app.rs", "active": true, "dirty": false}], "context": {"editorLangId": "rust", "editorFocus": true}}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<ViewInfo, CommandError> {
        let held = cx.services.view().lock().clone();
        let context = context_keys(cx, &held);
        let ws = cx.services.ws();
        let active = ws.active().map(|p| p.to_string());
        let tabs = ws
            .buffers()
            .map(|b| Tab {
                path: b.path.to_string(),
                dirty: b.is_dirty(),
                active: Some(b.path.as_str()) == active.as_deref(),
                language: b.language.to_string(),
            })
            .collect();
        Ok(ViewInfo {
            state: held.view,
            tabs,
            active,
            context,
        })
    }
}

/// `ultra.setContext`.
pub struct SetContext;

impl Command<Services> for SetContext {
    type Args = SetContextArgs;
    type Output = ContextKeys;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.setContext",
        "View: Set Context Key",
        "View",
        "Set a context key that when-clauses read (VS Code's setContext); null removes it. Keys derived from the view (editorFocus, paletteOpen, editorLangId, ...) cannot be set. Not for agents: a key could turn on a person's key binding.",
    )
    .touches(Touches::NOTHING)
    .idempotent()
    .only_sources(&[
        SourceKind::Human,
        SourceKind::Cli,
        SourceKind::Ipc,
        SourceKind::Extension,
        SourceKind::Internal,
    ])
    .examples(&[Example {
        description: "Turn on a mode for key bindings",
        args: r#"{"key": "vimMode", "value": true}"#,
        expect: Some(r#"{"keys": {"vimMode": true}}"#),
        ..Example::EMPTY
    }, Example {
        description: "An agent may not",
        args: r#"{"key": "vimMode", "value": true}"#,
        error: Some("SOURCE_NOT_ALLOWED"),
        source: Some(SourceKind::Ai),
        ..Example::EMPTY
    }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: SetContextArgs,
    ) -> Result<ContextKeys, CommandError> {
        let valid = a.key.len() <= 100
            && a.key
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
            && a.key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if !valid {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("`{}` is not a context key name", a.key),
            )
            .with_suggestion(
                "use letters, digits, `_` and `.`, starting with a letter (at most 100)",
            ));
        }
        if DERIVED.contains(&a.key.as_str()) {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("`{}` is derived from the view and cannot be set", a.key),
            )
            .with_suggestion("change the view with its command instead (ultra.toggleSidebar, ultra.commandPalette, ...)"));
        }
        if serde_json::to_string(&a.value).map_or(0, |s| s.len()) > 1024 {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                "a context value is limited to 1 KiB of JSON",
            )
            .with_suggestion("use a short string, number or boolean"));
        }
        let held = cx.services.view().change_held(cx, |v| {
            if a.value.is_null() {
                v.custom.remove(&a.key);
            } else if v.custom.len() < 256 || v.custom.contains_key(&a.key) {
                v.custom.insert(a.key.clone(), a.value.clone());
            }
        });
        if !a.value.is_null() && !held.custom.contains_key(&a.key) {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                "at most 256 context keys can be set",
            )
            .with_suggestion("remove keys no longer needed by setting them to null"));
        }
        Ok(ContextKeys {
            keys: context_keys(cx, &held),
        })
    }
}

/// `ultra.inspectContextKeys`.
pub struct InspectContextKeys;

impl Command<Services> for InspectContextKeys {
    type Args = NoArgs;
    type Output = ContextKeys;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.inspectContextKeys",
        "Developer: Inspect Context Keys",
        "View",
        "Every context key when-clauses can read now, with its value: the ones derived from the view and the active buffer and those set with ultra.setContext.",
    )
    .touches(Touches::NOTHING)
    .read_only()
    .examples(&[Example {
        description: "With a buffer open",
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"keys": {"editorIsOpen": true, "editorLangId": "rust", "paletteOpen": false, "editorHasSelection": false}}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<ContextKeys, CommandError> {
        let held = cx.services.view().lock().clone();
        Ok(ContextKeys {
            keys: context_keys(cx, &held),
        })
    }
}
