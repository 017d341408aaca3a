//! What the editor reads back from `ultra.getViewState` and `ultra.getViewport`: the
//! fields it draws, nothing more (unknown fields are ignored so the server can add some).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use ultra_protocol::Position;

/// `ultra.getViewState`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ViewInfo {
    pub sidebar: bool,
    pub sidebar_focused: bool,
    pub agent_pane: bool,
    pub split: String,
    pub split_path: Option<String>,
    pub palette: PaletteView,
    pub terminal: TerminalView,
    pub progress: Option<Value>,
    pub tabs: Vec<Tab>,
    pub active: Option<String>,
    pub context: BTreeMap<String, Value>,
}

/// The palette part of the view.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PaletteView {
    pub open: bool,
    pub query: String,
}

/// The terminal panel part of the view.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TerminalView {
    pub visible: bool,
    pub focused: bool,
    pub terminal_id: Option<String>,
}

/// One tab.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Tab {
    pub path: String,
    pub dirty: bool,
    pub active: bool,
}

/// `ultra.getViewport`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Viewport {
    pub path: String,
    pub language: String,
    pub version: u64,
    pub dirty: bool,
    pub line_count: usize,
    pub top: usize,
    pub lines: Vec<Line>,
    pub selections: Vec<Sel>,
    pub markers: Vec<Marker>,
    pub last_change: Option<LastChange>,
}

/// One line on screen.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Line {
    pub line: usize,
    pub text: String,
    pub spans: Vec<Span>,
}

/// A highlighted run, in characters.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub scope: String,
}

/// A selection.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct Sel {
    pub anchor: Position,
    pub head: Position,
}

/// A syntax-error marker.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Marker {
    pub line: usize,
    pub start: usize,
    pub end: usize,
    pub message: String,
}

/// Who changed the buffer last.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LastChange {
    pub source: String,
    pub agent_id: Option<String>,
    pub command: String,
}

impl Viewport {
    /// The primary cursor.
    pub fn cursor(&self) -> Position {
        self.selections
            .first()
            .map(|s| s.head)
            .unwrap_or(Position::new(0, 0))
    }
}
