//! The context keys derived from the server's view and the active buffer.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use ultra_core::Cx;

use super::Split;
use ultra_services::Services;
use ultra_services::view::Held;

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
