//! The view commands' arguments and results (`ultra.getViewState`, `ultra.getViewport`,
//! the toggles, context keys, tabs, quit): the server answers with them and editors read
//! them back, so both sides share one definition. Result types ignore unknown fields, so
//! the server can add some without breaking an older editor.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Position, SourceKind};

/// How the editor area is split.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    #[default]
    None,
    Vertical,
    Horizontal,
}

/// The command palette.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Palette {
    pub open: bool,
    /// What it was opened with.
    pub query: String,
}

/// The terminal panel: which terminal it shows and whether keys go to it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TerminalPanel {
    pub visible: bool,
    pub focused: bool,
    /// The terminal shown (made by `ultra.toggleTerminal` when none is alive).
    pub terminal_id: Option<String>,
}

/// What the editor shows, shared by every client.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewState {
    pub sidebar: bool,
    /// Keys go to the sidebar's file list.
    pub sidebar_focused: bool,
    pub agent_pane: bool,
    pub split: Split,
    /// The buffer the second group shows (the one active when the view was split).
    pub split_path: Option<String>,
    pub palette: Palette,
    /// The terminal panel.
    pub terminal: TerminalPanel,
    /// The latest `ultra.ai.reportProgress`.
    pub progress: Option<Value>,
}

/// One tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tab {
    pub path: String,
    pub dirty: bool,
    pub active: bool,
    pub language: String,
}

/// Result of `ultra.getViewState`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewInfo {
    #[serde(flatten)]
    pub state: ViewState,
    /// Open buffers, by path.
    pub tabs: Vec<Tab>,
    pub active: Option<String>,
    /// Every context key and its value.
    pub context: BTreeMap<String, Value>,
}

/// Arguments of `ultra.getViewport`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ViewportArgs {
    /// The file (default: the active buffer).
    pub path: Option<String>,
    /// First line (0-based, default 0).
    #[serde(default)]
    pub top: usize,
    /// How many lines (default 50, at most 1,000).
    pub height: Option<usize>,
    /// Most characters of a line to return (default 1,000); longer lines are cut.
    pub max_line_chars: Option<usize>,
    /// Highlight syntax (default true).
    pub highlight: Option<bool>,
}

/// What a highlighted span is, reduced from the grammars' capture names to the kinds a
/// terminal theme colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Keyword,
    String,
    Comment,
    Function,
    Type,
    Number,
    Constant,
    Property,
    Operator,
    Punctuation,
    Attribute,
    Builtin,
    Module,
    Label,
    Tag,
    Escape,
    Variable,
}

/// One highlighted run on a line: characters `start..end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LineSpan {
    pub start: usize,
    pub end: usize,
    pub scope: Scope,
}

/// One line on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ViewLine {
    /// Line number (0-based).
    pub line: usize,
    /// The text without its line break.
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(!default)]
    pub spans: Vec<LineSpan>,
    /// The line was longer than `maxLineChars`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(!default)]
    pub cut: bool,
}

/// A selection: `anchor` stays, `head` is the cursor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ViewSelection {
    pub anchor: Position,
    pub head: Position,
}

/// A syntax problem on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Marker {
    pub line: usize,
    pub start: usize,
    pub end: usize,
    pub message: String,
    pub severity: String,
}

/// Who last changed the buffer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastChange {
    pub source: SourceKind,
    pub agent_id: Option<String>,
    pub command: String,
    pub txn_id: u64,
}

/// Result of `ultra.getViewport`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Viewport {
    pub path: String,
    pub language: String,
    pub version: u64,
    pub dirty: bool,
    pub line_count: usize,
    pub top: usize,
    pub lines: Vec<ViewLine>,
    /// Every selection, primary first.
    pub selections: Vec<ViewSelection>,
    pub markers: Vec<Marker>,
    pub last_change: Option<LastChange>,
    /// Whether syntax highlighting ran (known language, at most 4 MiB).
    pub highlighted: bool,
}

/// Arguments of the toggles.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToggleArgs {
    /// Set instead of toggling.
    pub visible: Option<bool>,
}

/// Arguments of `ultra.splitView`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SplitArgs {
    /// `vertical` (side by side), `horizontal` (one above the other) or `none`; without
    /// it, toggles between none and vertical.
    pub direction: Option<Split>,
}

/// Arguments of `ultra.commandPalette`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaletteArgs {
    /// Text to start the search with.
    #[serde(default)]
    pub query: String,
}

/// Arguments of `ultra.toggleTerminal`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerminalArgs {
    /// Set instead of toggling.
    pub visible: Option<bool>,
    /// Rows of a terminal made now (default 24).
    pub rows: Option<u16>,
    /// Columns of a terminal made now (default 120).
    pub cols: Option<u16>,
}

/// Arguments of `ultra.focusTerminal` and `ultra.focusSidebar`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FocusArgs {
    /// Keys to it (true) or to the editor (false); without it, toggles.
    pub focus: Option<bool>,
}

/// Arguments of `ultra.setContext`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetContextArgs {
    /// The key: letters, digits, `_` and `.`, starting with a letter.
    pub key: String,
    /// Its value (null removes it).
    pub value: Value,
}

/// Result of `ultra.setContext`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextKeys {
    /// Every context key and its value.
    pub keys: BTreeMap<String, Value>,
}

/// Result of the tab commands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Active {
    /// The active buffer now.
    pub active: String,
}

/// Arguments of `ultra.quit`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuitArgs {
    /// Quit even with unsaved changes (they stay in the server's buffers when the editor
    /// is attached to `ultra serve`, and are lost otherwise).
    #[serde(default)]
    pub force: bool,
}

/// Result of `ultra.quit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuitOk {
    /// The editor that ran it closes.
    pub quit: bool,
}

impl Viewport {
    /// The primary cursor (the start of the file when there is no selection).
    pub fn cursor(&self) -> Position {
        self.selections
            .first()
            .map(|s| s.head)
            .unwrap_or(Position::new(0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_without_spans_or_cut_reads_back() {
        let l: ViewLine = serde_json::from_str(r#"{"line": 3, "text": "x"}"#).unwrap();
        assert!(l.spans.is_empty() && !l.cut);
        let back = serde_json::to_value(&l).unwrap();
        assert_eq!(back, serde_json::json!({"line": 3, "text": "x"}));
    }

    #[test]
    fn view_info_reads_the_flattened_view() {
        let v: ViewInfo = serde_json::from_str(
            r#"{"sidebar": true, "sidebarFocused": false, "agentPane": false, "split": "vertical",
                "splitPath": null, "palette": {"open": false, "query": ""},
                "terminal": {"visible": false, "focused": false, "terminalId": null},
                "progress": null, "tabs": [], "active": null, "context": {}, "later": 1}"#,
        )
        .unwrap();
        assert!(v.state.sidebar);
        assert_eq!(v.state.split, Split::Vertical);
    }
}
