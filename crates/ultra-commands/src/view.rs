//! The view: what an editor shows, kept by the server so that a person's editor, the web
//! UI and agents see and change the same thing through commands. `ultra.getViewState` is
//! the panes, tabs and context keys; `ultra.getViewport` is the lines on screen with their
//! highlighting, selections and syntax-error markers; the toggles (`ultra.toggleSidebar`,
//! `ultra.splitView`, `ultra.commandPalette`, ...) change the view and announce it as
//! `view.changed`. Context keys are what when-clauses read: the ones derived here from the
//! view and the active buffer, plus any an editor sets with `ultra.setContext`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_index::Lang;
use ultra_index::highlight::{Highlighter, Scope};
use ultra_protocol::{CommandError, ErrorCode, Position, SourceKind};
use ultra_workspace::RelPath;

use crate::services::Services;
use crate::util::{NoArgs, target};

/// The event announcing a changed view; its data is the view state.
pub const VIEW_CHANGED: &str = "view.changed";

/// Register the view commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GetViewState)?;
    r.register(GetViewport)?;
    r.register(TogglePane(&TOGGLE_SIDEBAR, |v| &mut v.sidebar))?;
    r.register(TogglePane(&TOGGLE_AGENT_PANE, |v| &mut v.agent_pane))?;
    r.register(SplitView)?;
    r.register(CommandPalette)?;
    r.register(ClosePalette)?;
    r.register(FocusSidebar)?;
    r.register(ToggleTerminal)?;
    r.register(FocusTerminal)?;
    r.register(SetContext)?;
    r.register(InspectContextKeys)?;
    r.register(CycleEditor(&NEXT_EDITOR, 1))?;
    r.register(CycleEditor(&PREVIOUS_EDITOR, -1))?;
    r.register(Quit)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[(
    "src/app.rs",
    "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n",
)];
const OPEN: &[(&str, &str)] = &[("ultra.openFile", r#"{"path": "src/app.rs"}"#)];

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
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Palette {
    pub open: bool,
    /// What it was opened with.
    pub query: String,
}

/// The terminal panel: which terminal it shows and whether keys go to it.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TerminalPanel {
    pub visible: bool,
    pub focused: bool,
    /// The terminal shown (made by `ultra.toggleTerminal` when none is alive).
    pub terminal_id: Option<String>,
}

/// What the editor shows, shared by every client.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
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
    /// Keys editors set with `ultra.setContext`.
    #[serde(skip)]
    custom: BTreeMap<String, Value>,
    /// What `ultra.findNext` repeats.
    #[serde(skip)]
    last_find: Option<crate::find::FindArgs>,
}

/// A buffer's id and version: what a highlighter was brought up to.
type BufferAt = (u64, u64);

/// The view and the highlighting state of open buffers.
#[derive(Default)]
pub struct ViewService {
    state: Mutex<ViewState>,
    /// Per path: the buffer state highlighted and its highlighter; only for buffers
    /// still open.
    highlighters: Mutex<HashMap<String, (BufferAt, Highlighter)>>,
}

impl ViewService {
    fn lock(&self) -> std::sync::MutexGuard<'_, ViewState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Remember a search for `ultra.findNext`.
    pub fn set_last_find(&self, find: crate::find::FindArgs) {
        self.lock().last_find = Some(find);
    }

    /// The search `ultra.findNext` repeats.
    pub fn last_find(&self) -> Option<crate::find::FindArgs> {
        self.lock().last_find.clone()
    }

    /// Record the latest progress report.
    pub fn set_progress(&self, progress: Value) {
        self.lock().progress = Some(progress);
    }

    /// Change the view and announce it.
    fn change(&self, cx: &Cx<'_, Services>, f: impl FnOnce(&mut ViewState)) -> ViewState {
        let state = {
            let mut s = self.lock();
            f(&mut s);
            s.clone()
        };
        cx.events.emit_with(VIEW_CHANGED, Some(cx.source), || {
            serde_json::to_value(&state).unwrap_or_default()
        });
        state
    }
}

/// Keys derived from the view and the active buffer; `ultra.setContext` cannot set them.
const DERIVED: &[&str] = &[
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
fn context_keys(cx: &Cx<'_, Services>, view: &ViewState) -> BTreeMap<String, Value> {
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
    for (k, v) in &view.custom {
        keys.insert(k.clone(), v.clone());
    }
    keys
}

// ---------------------------------------------------------------- getViewState

/// One tab.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tab {
    pub path: String,
    pub dirty: bool,
    pub active: bool,
    pub language: String,
}

/// Result of `ultra.getViewState`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewInfo {
    #[serde(flatten)]
    pub view: ViewState,
    /// Open buffers, by path.
    pub tabs: Vec<Tab>,
    pub active: Option<String>,
    /// Every context key and its value.
    pub context: BTreeMap<String, Value>,
}

/// `ultra.getViewState`.
pub struct GetViewState;

static GET_VIEW_STATE: CommandSpec = CommandSpec::new(
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

impl Command<Services> for GetViewState {
    type Args = NoArgs;
    type Output = ViewInfo;

    fn spec(&self) -> &'static CommandSpec {
        &GET_VIEW_STATE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<ViewInfo, CommandError> {
        let view = cx.services.view().lock().clone();
        let context = context_keys(cx, &view);
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
            view,
            tabs,
            active,
            context,
        })
    }
}

// ---------------------------------------------------------------- getViewport

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

/// One highlighted run on a line: characters `start..end`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LineSpan {
    pub start: usize,
    pub end: usize,
    pub scope: Scope,
}

/// One line on screen.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ViewLine {
    /// Line number (0-based).
    pub line: usize,
    /// The text without its line break.
    pub text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<LineSpan>,
    /// The line was longer than `maxLineChars`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// A selection: `anchor` stays, `head` is the cursor.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ViewSelection {
    pub anchor: Position,
    pub head: Position,
}

/// A syntax problem on screen.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Marker {
    pub line: usize,
    pub start: usize,
    pub end: usize,
    pub message: String,
    pub severity: String,
}

/// Who last changed the buffer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastChange {
    pub source: SourceKind,
    pub agent_id: Option<String>,
    pub command: String,
    pub txn_id: u64,
}

/// Result of `ultra.getViewport`.
#[derive(Debug, Serialize, JsonSchema)]
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

/// `ultra.getViewport`.
pub struct GetViewport;

static GET_VIEWPORT: CommandSpec = CommandSpec::new(
    "ultra.getViewport",
    "View: Get Viewport",
    "View",
    "The lines of a buffer from `top` (0-based) for `height` lines, each with syntax highlighting spans (character columns, tree-sitter), plus the selections, syntax-error markers on those lines, the version, dirty state and who made the last change. What an editor draws, in one call. A file that is not open is read from disk without opening it (version 0, no selections).",
)
.touches(Touches::READ)
.read_only()
.quiet()
.examples(&[Example {
    description: "The first two lines",
    args: r#"{"top": 0, "height": 2}"#,
    files: HELLO,
    setup: OPEN,
    expect: Some(r#"{"path": "src/app.rs", "lineCount": 5, "lines": [{"line": 0, "text": "fn main() {", "spans": [{"start": 0, "end": 2, "scope": "keyword"}]}, {"line": 1}], "highlighted": true}"#),
    ..Example::EMPTY
}, Example {
    description: "A file not open: read without opening it",
    args: r#"{"path": "src/app.rs", "top": 2, "height": 1}"#,
    files: HELLO,
    expect: Some(r#"{"version": 0, "selections": [], "lines": [{"line": 2, "text": "    println!(\"{x}\");"}]}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for GetViewport {
    type Args = ViewportArgs;
    type Output = Viewport;

    fn spec(&self) -> &'static CommandSpec {
        &GET_VIEWPORT
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: ViewportArgs) -> Result<Viewport, CommandError> {
        let height = a.height.unwrap_or(50);
        if height > 1000 {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("height {height} is more than 1000 lines"),
            )
            .with_suggestion("ask for at most 1000 lines, or page with `top`"));
        }
        let max_chars = a.max_line_chars.unwrap_or(1000).max(1);
        let enc = cx.source.encoding();
        let (rel, rope, version, dirty, language, sels, last_change, buffers) = {
            let mut ws = cx.services.ws();
            let buffers: HashMap<String, u64> =
                ws.buffers().map(|b| (b.path.to_string(), b.id)).collect();
            let rel: RelPath = target(cx, &ws, a.path.as_deref(), false)?;
            let last_change = ws
                .history()
                .iter()
                .rev()
                .find(|t| t.changes.iter().any(|c| c.path == rel))
                .map(|t| LastChange {
                    source: t.source.kind,
                    agent_id: t.source.agent_id.clone(),
                    command: t.command.clone(),
                    txn_id: t.txn_id,
                });
            if let Some(b) = ws.buffer(&rel) {
                let sels: Vec<ViewSelection> = b
                    .selections
                    .iter()
                    .map(|s| ViewSelection {
                        anchor: ultra_workspace::text::to_pos(&b.rope, s.anchor, enc),
                        head: ultra_workspace::text::to_pos(&b.rope, s.head, enc),
                    })
                    .collect();
                (
                    rel,
                    b.rope.clone(),
                    b.version,
                    b.is_dirty(),
                    b.language,
                    sels,
                    last_change,
                    buffers,
                )
            } else {
                // Looking opens no buffer (no tab appears for a person).
                let snap = ws.snapshot(&rel)?;
                (
                    rel,
                    snap.rope,
                    0,
                    false,
                    snap.language,
                    Vec::new(),
                    last_change,
                    buffers,
                )
            }
        };
        // A file that is not open is highlighted afresh and not kept.
        let open = buffers.contains_key(rel.as_str());
        let line_count = rope.len_lines();
        let top = a.top.min(line_count.saturating_sub(1));
        let end = (top + height).min(line_count);
        let mut lines: Vec<ViewLine> = (top..end)
            .map(|i| {
                let line = rope.line(i);
                let mut text: String = line.chars().take(max_chars).collect();
                let cut = line.len_chars() > max_chars
                    && !(line.len_chars() == max_chars + 1 && text.ends_with('\n'));
                while text.ends_with('\n') || text.ends_with('\r') {
                    text.pop();
                }
                ViewLine {
                    line: i,
                    text,
                    spans: Vec::new(),
                    cut,
                }
            })
            .collect();
        let mut markers = Vec::new();
        let lang = Lang::of_path(rel.as_str());
        let mut highlighted = false;
        if let Some(lang) = lang
            && a.highlight.unwrap_or(true)
            && rope.len_bytes() <= ultra_index::passes::MAX_PARSE_BYTES
        {
            let mut all = cx
                .services
                .view()
                .highlighters
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            // Closed buffers' highlighting goes.
            all.retain(|p, (at, _)| buffers.get(p) == Some(&at.0));
            let key = rel.to_string();
            let at = (buffers.get(&key).copied().unwrap_or(0), version);
            let bytes = || {
                let mut v = Vec::with_capacity(rope.len_bytes());
                for chunk in rope.chunks() {
                    v.extend_from_slice(chunk.as_bytes());
                }
                v
            };
            let fresh = match all.remove(&key).filter(|_| open) {
                Some((v, h)) if v == at && h.lang() == lang => Some(h),
                Some((_, mut h)) if h.lang() == lang => h.update(bytes()).then_some(h),
                _ => Highlighter::new(lang, bytes()),
            };
            if let Some(h) = fresh {
                let lo = rope.line_to_byte(top);
                let hi = rope.line_to_byte(end);
                for sp in h.spans(lo..hi) {
                    paint(&rope, &mut lines, top, sp.start, sp.end, |l, s, e| {
                        l.spans.push(LineSpan {
                            start: s,
                            end: e,
                            scope: sp.scope,
                        })
                    });
                }
                for err in h.errors(lo..hi) {
                    let line = rope.byte_to_line(err.start.min(rope.len_bytes()));
                    let start = rope.byte_to_char(err.start) - rope.line_to_char(line);
                    let end_line = rope.byte_to_line(err.end.min(rope.len_bytes()));
                    let end = if end_line == line {
                        rope.byte_to_char(err.end) - rope.line_to_char(line)
                    } else {
                        ultra_workspace::text::line_len(&rope, line)
                    };
                    markers.push(Marker {
                        line,
                        start,
                        end: end.max(start + 1),
                        message: err.message,
                        severity: "error".into(),
                    });
                }
                highlighted = true;
                if open {
                    all.insert(key, (at, h));
                }
            }
        }
        Ok(Viewport {
            path: rel.to_string(),
            language: language.to_string(),
            version,
            dirty,
            line_count,
            top,
            lines,
            selections: sels,
            markers,
            last_change,
            highlighted,
        })
    }
}

/// Split the byte span `start..end` into per-line character spans on the lines shown.
fn paint(
    rope: &ropey::Rope,
    lines: &mut [ViewLine],
    top: usize,
    start: usize,
    end: usize,
    mut f: impl FnMut(&mut ViewLine, usize, usize),
) {
    let first = rope.byte_to_line(start);
    let last = rope.byte_to_line(end.saturating_sub(1).max(start));
    for li in first..=last {
        let Some(line) = li.checked_sub(top).and_then(|i| lines.get_mut(i)) else {
            continue;
        };
        let base = rope.line_to_char(li);
        let s = if li == first {
            rope.byte_to_char(start) - base
        } else {
            0
        };
        let e = if li == last {
            rope.byte_to_char(end) - base
        } else {
            line.text.chars().count()
        };
        let len = line.text.chars().count();
        let (s, e) = (s.min(len), e.min(len));
        if s < e {
            f(line, s, e);
        }
    }
}

// ---------------------------------------------------------------- toggles

/// The result of a view change: the new view.
pub type Changed = ViewState;

/// `ultra.toggleSidebar` / `ultra.toggleAgentPane`: a pane's visibility.
pub struct TogglePane(&'static CommandSpec, fn(&mut ViewState) -> &mut bool);

static TOGGLE_SIDEBAR: CommandSpec = CommandSpec::new(
    "ultra.toggleSidebar",
    "View: Toggle Sidebar",
    "View",
    "Show or hide the file tree; `visible` sets it instead of toggling.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+b")
.examples(&[Example {
    description: "Show the sidebar",
    args: r#"{"visible": true}"#,
    expect: Some(r#"{"sidebar": true}"#),
    ..Example::EMPTY
}]);

static TOGGLE_AGENT_PANE: CommandSpec = CommandSpec::new(
    "ultra.toggleAgentPane",
    "View: Toggle Agent Pane",
    "View",
    "Show or hide the agent pane (recent agent commands, progress, pending confirmations); `visible` sets it instead of toggling.",
)
.touches(Touches::NOTHING)
.keybinding("alt+a")
.examples(&[Example {
    description: "Show the agent pane",
    args: r#"{"visible": true}"#,
    expect: Some(r#"{"agentPane": true}"#),
    ..Example::EMPTY
}]);

/// Arguments of the toggles.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToggleArgs {
    /// Set instead of toggling.
    pub visible: Option<bool>,
}

impl Command<Services> for TogglePane {
    type Args = ToggleArgs;
    type Output = Changed;

    fn spec(&self) -> &'static CommandSpec {
        self.0
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: ToggleArgs) -> Result<Changed, CommandError> {
        let field = self.1;
        Ok(cx.services.view().change(cx, |v| {
            let shown = field(v);
            *shown = a.visible.unwrap_or(!*shown);
        }))
    }
}

/// Arguments of `ultra.splitView`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SplitArgs {
    /// `vertical` (side by side), `horizontal` (one above the other) or `none`; without
    /// it, toggles between none and vertical.
    pub direction: Option<Split>,
}

/// `ultra.splitView`.
pub struct SplitView;

static SPLIT_VIEW: CommandSpec = CommandSpec::new(
    "ultra.splitView",
    "View: Split Editor",
    "View",
    "Split the editor into two groups: the second keeps showing the buffer active now while the first follows the active buffer. `direction: none` joins them again.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+\\")
.examples(&[Example {
    description: "Side by side",
    args: r#"{"direction": "vertical"}"#,
    files: HELLO,
    setup: OPEN,
    expect: Some(r#"{"split": "vertical", "splitPath": "src/app.rs"}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for SplitView {
    type Args = SplitArgs;
    type Output = Changed;

    fn spec(&self) -> &'static CommandSpec {
        &SPLIT_VIEW
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: SplitArgs) -> Result<Changed, CommandError> {
        let active = cx.services.ws().active().map(|p| p.to_string());
        Ok(cx.services.view().change(cx, |v| {
            v.split = a.direction.unwrap_or(if v.split == Split::None {
                Split::Vertical
            } else {
                Split::None
            });
            v.split_path = if v.split == Split::None { None } else { active };
        }))
    }
}

/// Arguments of `ultra.commandPalette`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaletteArgs {
    /// Text to start the search with.
    #[serde(default)]
    pub query: String,
}

/// `ultra.commandPalette`.
pub struct CommandPalette;

static COMMAND_PALETTE: CommandSpec = CommandSpec::new(
    "ultra.commandPalette",
    "View: Show Command Palette",
    "View",
    "Open the command palette (fuzzy search over every command; arguments are asked for from each command's schema), optionally with a query typed in. An agent can open it to point a person at a command.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+p")
.more_keys(&[("f1", "{}"), ("ctrl+shift+p", "{}")])
.examples(&[Example {
    description: "Open it searching for save",
    args: r#"{"query": "save"}"#,
    expect: Some(r#"{"palette": {"open": true, "query": "save"}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for CommandPalette {
    type Args = PaletteArgs;
    type Output = Changed;

    fn spec(&self) -> &'static CommandSpec {
        &COMMAND_PALETTE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: PaletteArgs) -> Result<Changed, CommandError> {
        if a.query.chars().count() > 200 {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                "the query is longer than 200 characters",
            )
            .with_suggestion("use a few words of the command's title or id"));
        }
        Ok(cx.services.view().change(cx, |v| {
            v.palette = Palette {
                open: true,
                query: a.query,
            };
        }))
    }
}

/// `ultra.closePalette`.
pub struct ClosePalette;

static CLOSE_PALETTE: CommandSpec = CommandSpec::new(
    "ultra.closePalette",
    "View: Close Command Palette",
    "View",
    "Close the command palette.",
)
.touches(Touches::NOTHING)
.idempotent()
.examples(&[Example {
    description: "Close it",
    setup: &[("ultra.commandPalette", "{}")],
    expect: Some(r#"{"palette": {"open": false}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for ClosePalette {
    type Args = NoArgs;
    type Output = Changed;

    fn spec(&self) -> &'static CommandSpec {
        &CLOSE_PALETTE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Changed, CommandError> {
        Ok(cx
            .services
            .view()
            .change(cx, |v| v.palette = Palette::default()))
    }
}

/// `ultra.focusSidebar`.
pub struct FocusSidebar;

static FOCUS_SIDEBAR: CommandSpec = CommandSpec::new(
    "ultra.focusSidebar",
    "View: Focus File Tree",
    "View",
    "Send keys to the sidebar's file list (showing it if hidden: arrows choose, Enter opens), or back to the editor.",
)
.touches(Touches::NOTHING)
.keybinding("alt+e")
.examples(&[Example {
    description: "Focus the file list",
    args: r#"{"focus": true}"#,
    expect: Some(r#"{"sidebar": true, "sidebarFocused": true}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for FocusSidebar {
    type Args = FocusArgs;
    type Output = Changed;

    fn spec(&self) -> &'static CommandSpec {
        &FOCUS_SIDEBAR
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: FocusArgs) -> Result<Changed, CommandError> {
        Ok(cx.services.view().change(cx, |v| {
            let focus = a.focus.unwrap_or(!(v.sidebar && v.sidebar_focused));
            v.sidebar_focused = focus;
            v.sidebar |= focus;
        }))
    }
}

// ---------------------------------------------------------------- terminal panel

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

/// `ultra.toggleTerminal`.
pub struct ToggleTerminal;

static TOGGLE_TERMINAL: CommandSpec = CommandSpec::new(
    "ultra.toggleTerminal",
    "View: Toggle Terminal",
    "View",
    "Show the terminal panel with keys going to it (starting a terminal, as terminal.create does, when none it showed is alive), or hide it; the terminal lives on while hidden.",
)
.touches(Touches::NOTHING)
.keybinding("alt+t")
.more_keys(&[("ctrl+`", "{}")])
.examples(&[Example {
    description: "Show it",
    args: r#"{"visible": true, "rows": 10, "cols": 80}"#,
    expect: Some(r#"{"terminal": {"visible": true, "focused": true, "terminalId": "term-1"}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for ToggleTerminal {
    type Args = TerminalArgs;
    type Output = Changed;

    fn spec(&self) -> &'static CommandSpec {
        &TOGGLE_TERMINAL
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: TerminalArgs) -> Result<Changed, CommandError> {
        let current = cx.services.view().lock().terminal.clone();
        let show = a.visible.unwrap_or(!current.visible);
        let alive = current
            .terminal_id
            .as_deref()
            .is_some_and(|id| cx.services.terminals().alive(id));
        let id = if show && !alive {
            let made = crate::terminal::create(
                cx,
                crate::terminal::CreateArgs {
                    name: Some("Editor".into()),
                    rows: a.rows,
                    cols: a.cols,
                    ..Default::default()
                },
            )?;
            Some(made.terminal_id)
        } else {
            current.terminal_id
        };
        Ok(cx.services.view().change(cx, |v| {
            v.terminal = TerminalPanel {
                visible: show,
                focused: show,
                terminal_id: id,
            };
        }))
    }
}

/// Arguments of `ultra.focusTerminal` and `ultra.focusSidebar`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FocusArgs {
    /// Keys to it (true) or to the editor (false); without it, toggles.
    pub focus: Option<bool>,
}

/// `ultra.focusTerminal`.
pub struct FocusTerminal;

static FOCUS_TERMINAL: CommandSpec = CommandSpec::new(
    "ultra.focusTerminal",
    "View: Focus Terminal / Editor",
    "View",
    "Send keys to the visible terminal panel, or back to the editor.",
)
.touches(Touches::NOTHING)
.keybinding("alt+j")
.when("terminalVisible")
.examples(&[Example {
    description: "Back to the editor",
    args: r#"{"focus": false}"#,
    setup: &[("ultra.toggleTerminal", "{}")],
    expect: Some(r#"{"terminal": {"visible": true, "focused": false}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for FocusTerminal {
    type Args = FocusArgs;
    type Output = Changed;

    fn spec(&self) -> &'static CommandSpec {
        &FOCUS_TERMINAL
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: FocusArgs) -> Result<Changed, CommandError> {
        if !cx.services.view().lock().terminal.visible {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                "the terminal panel is hidden",
            )
            .with_suggestion("show it with ultra.toggleTerminal"));
        }
        Ok(cx.services.view().change(cx, |v| {
            v.terminal.focused = a.focus.unwrap_or(!v.terminal.focused);
        }))
    }
}

// ---------------------------------------------------------------- context keys

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
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContextKeys {
    /// Every context key and its value.
    pub keys: BTreeMap<String, Value>,
}

/// `ultra.setContext`.
pub struct SetContext;

static SET_CONTEXT: CommandSpec = CommandSpec::new(
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

impl Command<Services> for SetContext {
    type Args = SetContextArgs;
    type Output = ContextKeys;

    fn spec(&self) -> &'static CommandSpec {
        &SET_CONTEXT
    }

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
        let view = cx.services.view().change(cx, |v| {
            if a.value.is_null() {
                v.custom.remove(&a.key);
            } else if v.custom.len() < 256 || v.custom.contains_key(&a.key) {
                v.custom.insert(a.key.clone(), a.value.clone());
            }
        });
        if !a.value.is_null() && !view.custom.contains_key(&a.key) {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                "at most 256 context keys can be set",
            )
            .with_suggestion("remove keys no longer needed by setting them to null"));
        }
        Ok(ContextKeys {
            keys: context_keys(cx, &view),
        })
    }
}

/// `ultra.inspectContextKeys`.
pub struct InspectContextKeys;

static INSPECT_CONTEXT_KEYS: CommandSpec = CommandSpec::new(
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

impl Command<Services> for InspectContextKeys {
    type Args = NoArgs;
    type Output = ContextKeys;

    fn spec(&self) -> &'static CommandSpec {
        &INSPECT_CONTEXT_KEYS
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<ContextKeys, CommandError> {
        let view = cx.services.view().lock().clone();
        Ok(ContextKeys {
            keys: context_keys(cx, &view),
        })
    }
}

// ---------------------------------------------------------------- tabs

/// Result of the tab commands.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Active {
    /// The active buffer now.
    pub active: String,
}

/// `ultra.nextEditor` / `ultra.previousEditor`.
pub struct CycleEditor(&'static CommandSpec, isize);

static NEXT_EDITOR: CommandSpec = CommandSpec::new(
    "ultra.nextEditor",
    "View: Next Editor",
    "View",
    "Make the next open buffer (by path, wrapping) the active one.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+pagedown")
.more_keys(&[("alt+right", "{}")])
.examples(&[Example {
    description: "From the last tab back to the first",
    files: &[("a.txt", "a\n"), ("b.txt", "b\n")],
    setup: &[
        ("ultra.openFile", r#"{"path": "a.txt"}"#),
        ("ultra.openFile", r#"{"path": "b.txt"}"#),
    ],
    expect: Some(r#"{"active": "a.txt"}"#),
    ..Example::EMPTY
}]);

static PREVIOUS_EDITOR: CommandSpec = CommandSpec::new(
    "ultra.previousEditor",
    "View: Previous Editor",
    "View",
    "Make the previous open buffer (by path, wrapping) the active one.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+pageup")
.more_keys(&[("alt+left", "{}")])
.examples(&[Example {
    description: "Back one tab",
    files: &[("a.txt", "a\n"), ("b.txt", "b\n")],
    setup: &[
        ("ultra.openFile", r#"{"path": "a.txt"}"#),
        ("ultra.openFile", r#"{"path": "b.txt"}"#),
    ],
    expect: Some(r#"{"active": "a.txt"}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for CycleEditor {
    type Args = NoArgs;
    type Output = Active;

    fn spec(&self) -> &'static CommandSpec {
        self.0
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Active, CommandError> {
        let mut ws = cx.services.ws();
        let paths: Vec<RelPath> = ws.buffers().map(|b| b.path.clone()).collect();
        let current = ws.require_active()?;
        let i = paths.iter().position(|p| *p == current).unwrap_or(0) as isize;
        let n = paths.len() as isize;
        let next = paths[((i + self.1) % n + n) as usize % paths.len()].clone();
        ws.set_active(&next);
        Ok(Active {
            active: next.to_string(),
        })
    }
}

// ---------------------------------------------------------------- quit

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
#[derive(Debug, Serialize, JsonSchema)]
pub struct QuitOk {
    /// The editor that ran it closes.
    pub quit: bool,
}

/// `ultra.quit`.
pub struct Quit;

static QUIT: CommandSpec = CommandSpec::new(
    "ultra.quit",
    "File: Quit",
    "File",
    "Close the editor that runs it. Refused with BUFFER_DIRTY, listing the dirty buffers, unless they are saved or `force` is given.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+q")
.not_ai_exposed()
.only_sources(&[SourceKind::Human])
.examples(&[Example {
    description: "Nothing unsaved",
    expect: Some(r#"{"quit": true}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for Quit {
    type Args = QuitArgs;
    type Output = QuitOk;

    fn spec(&self) -> &'static CommandSpec {
        &QUIT
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: QuitArgs) -> Result<QuitOk, CommandError> {
        let dirty: Vec<String> = cx
            .services
            .ws()
            .buffers()
            .filter(|b| b.is_dirty())
            .map(|b| b.path.to_string())
            .collect();
        if !dirty.is_empty() && !a.force {
            return Err(CommandError::new(
                ErrorCode::BufferDirty,
                format!("unsaved changes in {}", dirty.join(", ")),
            )
            .with_details(json!({ "dirty": dirty }))
            .with_suggestion("save them (ultra.saveAll), or quit with {\"force\": true}"));
        }
        Ok(QuitOk { quit: true })
    }
}
