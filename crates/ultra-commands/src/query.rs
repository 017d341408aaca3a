//! Read-only queries (seed 000 `query.ts`), sized for a context window.

use ropey::Rope;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::command::CommandInfo;
use ultra_protocol::{CommandError, ErrorCode, Range};
use ultra_workspace::workspace::Snapshot;

use ultra_services::Services;
use ultra_services::util::{cap_chars, emit_notices, target};

/// Register the queries.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GetFileContent)?;
    r.register(GetSelection)?;
    r.register(GetOpenFiles)?;
    r.register(GetWorkspaceInfo)?;
    r.register(ListCommands)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];

/// The default cap on returned text, so one read cannot flood an agent's context.
pub const DEFAULT_MAX_CHARS: usize = 1 << 20;

// ---------------------------------------------------------------- getFileContent

/// Arguments of `ultra.getFileContent`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetFileContentArgs {
    /// The file (default: the active buffer). An open buffer's unsaved text is returned.
    pub path: Option<String>,
    /// First line to return (1-based, default 1).
    #[schemars(range(min = 1))]
    pub offset: Option<usize>,
    /// How many lines to return (default: all).
    pub limit: Option<usize>,
    /// Most characters to return (default 1 MiB); the cut falls on a line boundary.
    pub max_chars: Option<usize>,
}

/// Result of `ultra.getFileContent`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileContent {
    pub path: String,
    pub content: String,
    pub language: String,
    /// Lines in the whole file.
    pub line_count: usize,
    /// First and last line returned (1-based; last < first when nothing was returned).
    pub start_line: usize,
    pub end_line: usize,
    /// Whether lines after `endLine` were left out.
    pub truncated: bool,
    /// Pass as `offset` to continue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// "N more lines" when truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// Buffer version when the file is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Content hash of the whole file, for expectedHash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    pub is_dirty: bool,
}

/// `ultra.getFileContent`.
pub struct GetFileContent;

impl Command<Services> for GetFileContent {
    type Args = GetFileContentArgs;
    type Output = FileContent;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.getFileContent",
        "Get File Content",
        "Query",
        "Read a file: the open buffer's text (unsaved changes included) or the disk's. Page with offset (1-based line) and limit, cap with maxChars; a truncated read says how many lines remain and gives nextOffset. Returns the content hash to pass as expectedHash.",
    )
    .render(ultra_core::render::content)
    .touches(Touches::READ)
    .read_only()
    .tool_name("read_file")
    .examples(&[
        Example { description: "Read a whole file", args: r#"{"path": "src/app.ts"}"#, files: HELLO, expect: Some(r#"{"content": "const x = 1;\nconsole.log(x);\n", "language": "typescript", "lineCount": 2, "truncated": false}"#), ..Example::EMPTY },
        Example { description: "Read one line", args: r#"{"path": "src/app.ts", "offset": 2, "limit": 1}"#, files: HELLO, expect: Some(r#"{"content": "console.log(x);\n", "startLine": 2, "endLine": 2}"#), ..Example::EMPTY },
    ]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: GetFileContentArgs,
    ) -> Result<FileContent, CommandError> {
        let snap = read_snapshot(cx, args.path.as_deref())?;
        let page = page(
            &snap.rope,
            args.offset,
            args.limit,
            args.max_chars.unwrap_or(DEFAULT_MAX_CHARS),
        );
        Ok(FileContent {
            path: snap.path.to_string(),
            content: page.content,
            language: snap.language.into(),
            line_count: page.line_count,
            start_line: page.start_line,
            end_line: page.end_line,
            truncated: page.truncated,
            next_offset: page.next_offset,
            notice: page.notice,
            version: snap.version,
            hash: snap.hash,
            is_dirty: snap.dirty,
        })
    }
}

/// The current text of a file (default: the active buffer): its open buffer's, unsaved
/// changes included, else the disk's.
pub(crate) fn read_snapshot(
    cx: &Cx<'_, Services>,
    path: Option<&str>,
) -> Result<Snapshot, CommandError> {
    let mut ws = cx.services.ws();
    let rel = target(cx, &ws, path, false)?;
    let snap = ws.snapshot(&rel);
    emit_notices(cx, &mut ws);
    Ok(snap?)
}

/// A page of lines cut from a text.
pub(crate) struct Page {
    pub content: String,
    /// Lines in the whole text.
    pub line_count: usize,
    /// First and last line returned (1-based; last < first when nothing was returned).
    pub start_line: usize,
    pub end_line: usize,
    /// Whether lines after `end_line` were left out.
    pub truncated: bool,
    pub next_offset: Option<usize>,
    pub notice: Option<String>,
}

/// Lines `offset..offset + limit` (1-based; default: all) of `rope`, capped at `max_chars`
/// on a line boundary.
pub(crate) fn page(
    rope: &Rope,
    offset: Option<usize>,
    limit: Option<usize>,
    max_chars: usize,
) -> Page {
    // ropey counts an empty line after a final newline; people do not.
    let ends_nl = rope.len_chars() > 0 && rope.char(rope.len_chars() - 1) == '\n';
    let total = if ends_nl {
        rope.len_lines() - 1
    } else {
        rope.len_lines()
    };
    let total = if rope.len_chars() == 0 { 0 } else { total };
    let first = offset.unwrap_or(1).max(1);
    let want_end = match limit {
        Some(l) => (first + l).saturating_sub(1).min(total),
        None => total,
    };
    let (content, mut last) = if first > total {
        (String::new(), first - 1)
    } else {
        let s = rope.line_to_char(first - 1);
        let e = if want_end >= rope.len_lines() {
            rope.len_chars()
        } else {
            rope.line_to_char(want_end)
        };
        (rope.slice(s..e).to_string(), want_end)
    };
    let (content, cut) = cap_chars(content, max_chars);
    if cut {
        last = first - 1 + content.matches('\n').count();
    }
    let truncated = last < total;
    let remaining = total.saturating_sub(last);
    Page {
        content,
        line_count: total,
        start_line: first,
        end_line: last,
        truncated,
        next_offset: truncated.then_some(last + 1),
        notice: truncated
            .then(|| format!("{remaining} more lines; continue with offset={}", last + 1)),
    }
}

// ---------------------------------------------------------------- getSelection

/// Arguments of `ultra.getSelection`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PathArg {
    /// The file (default: the active buffer).
    pub path: Option<String>,
}

/// One selection on the wire.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectionInfo {
    pub range: Range,
    pub is_reversed: bool,
    pub text: String,
}

/// Result of `ultra.getSelection`. With no buffer to read (no path, no active editor) it
/// is seed 000's empty selection: `text: ""`, `isEmpty: true`, no path, range or selections.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectionResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The primary selection's text.
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    pub is_empty: bool,
    pub is_reversed: bool,
    /// Every selection, primary first.
    pub selections: Vec<SelectionInfo>,
}

/// The selections of an open buffer.
pub(crate) fn selection_of(
    cx: &Cx<'_, Services>,
    path: Option<&str>,
) -> Result<SelectionResult, CommandError> {
    let enc = cx.source.encoding();
    let mut ws = cx.services.ws();
    let rel = match target(cx, &ws, path, false) {
        // Nothing is open: seed 000 answers an empty selection, not an error.
        Err(e) if path.is_none() && e.code == ErrorCode::NoActiveBuffer => {
            return Ok(SelectionResult {
                path: None,
                text: String::new(),
                range: None,
                is_empty: true,
                is_reversed: false,
                selections: Vec::new(),
            });
        }
        r => r?,
    };
    ws.open_buffer(&rel)?;
    let buf = ws
        .buffer(&rel)
        .ok_or_else(|| ultra_workspace::WsError::NotFound(rel.to_string()))?;
    let selections: Vec<SelectionInfo> = buf
        .selections
        .iter()
        .map(|s| {
            let (a, b) = s.span();
            SelectionInfo {
                range: buf.range_of(s, enc),
                is_reversed: s.is_reversed(),
                text: buf.rope.slice(a..b).to_string(),
            }
        })
        .collect();
    let primary = &selections[0];
    Ok(SelectionResult {
        path: Some(rel.to_string()),
        text: primary.text.clone(),
        range: Some(primary.range),
        is_empty: primary.text.is_empty(),
        is_reversed: primary.is_reversed,
        selections,
    })
}

/// `ultra.getSelection`.
pub struct GetSelection;

impl Command<Services> for GetSelection {
    type Args = PathArg;
    type Output = SelectionResult;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.getSelection",
        "Get Selection",
        "Query",
        "The selections of a buffer (primary first) with their text and ranges. With no path and no active editor: an empty selection (text \"\", isEmpty true).",
    )
    .touches(Touches::READ)
    .read_only()
    // Seed 003's method takes `{path?}` and reads `{range, text}`: the same shape.
    .aliases(&["editor.getSelection"])
    .examples(&[Example {
        description: "Read the selection after selecting all",
        args: "{}",
        files: HELLO,
        setup: &[
            ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
            ("ultra.selectAll", "{}"),
        ],
        expect: Some(r#"{"text": "const x = 1;\nconsole.log(x);\n", "isEmpty": false}"#),
        ..Example::EMPTY
    }, Example {
        description: "No active editor: an empty selection",
        args: "{}",
        expect: Some(r#"{"text": "", "isEmpty": true, "selections": []}"#),
        ..Example::EMPTY
    }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: PathArg,
    ) -> Result<SelectionResult, CommandError> {
        selection_of(cx, args.path.as_deref())
    }
}

// ---------------------------------------------------------------- getOpenFiles

pub use ultra_services::util::NoArgs;

/// An open buffer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenFileInfo {
    pub path: String,
    pub is_dirty: bool,
    pub version: u64,
    pub language: String,
    pub active: bool,
    /// The file changed on disk while the buffer had unsaved changes.
    pub disk_conflict: bool,
}

/// `ultra.getOpenFiles`.
pub struct GetOpenFiles;

impl Command<Services> for GetOpenFiles {
    type Args = NoArgs;
    type Output = Vec<OpenFileInfo>;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.getOpenFiles",
        "Get Open Files",
        "Query",
        "Every open buffer with its version and dirty state.",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[Example {
        description: "List open buffers",
        args: "{}",
        files: HELLO,
        setup: &[("ultra.openFile", r#"{"path": "src/app.ts"}"#)],
        expect: Some(r#"[{"path": "src/app.ts", "isDirty": false, "active": true}]"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Vec<OpenFileInfo>, CommandError> {
        let ws = cx.services.ws();
        let active = ws.active().cloned();
        Ok(ws
            .buffers()
            .map(|b| OpenFileInfo {
                path: b.path.to_string(),
                is_dirty: b.is_dirty(),
                version: b.version,
                language: b.language.into(),
                active: active.as_ref() == Some(&b.path),
                disk_conflict: b.disk_conflict(),
            })
            .collect())
    }
}

// ---------------------------------------------------------------- getWorkspaceInfo

/// Result of `ultra.getWorkspaceInfo`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceInfo {
    pub root: String,
    /// Seed 003's `state.getWorkspace`: the workspace folders (one, the root).
    pub folders: Vec<String>,
    /// The root directory's name.
    pub name: String,
    pub open_file_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_file: Option<String>,
    pub api_level: u32,
    pub command_count: usize,
    pub validators: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit_log: Option<String>,
    pub version: String,
    /// Whether `search.findInFiles` reads only the files a trigram index says may match.
    pub text_index: ultra_services::TextState,
}

/// `ultra.getWorkspaceInfo`.
pub struct GetWorkspaceInfo;

impl Command<Services> for GetWorkspaceInfo {
    type Args = NoArgs;
    type Output = WorkspaceInfo;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.getWorkspaceInfo",
        "Get Workspace Info",
        "Query",
        "The workspace root, open files, active file, API level, loaded validators and where the audit log is; as seed 003's `state.getWorkspace`, its folders and name.",
    )
    .touches(Touches::NOTHING)
    .aliases(&["state.getWorkspace"])
    .read_only()
    .examples(&[Example { description: "Describe the workspace", args: "{}", expect: Some(r#"{"openFileCount": 0, "apiLevel": 1}"#), ..Example::EMPTY }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<WorkspaceInfo, CommandError> {
        let ws = cx.services.ws();
        let root = cx.services.root_path();
        let shown = root.display().to_string();
        Ok(WorkspaceInfo {
            folders: vec![shown.clone()],
            root: shown,
            name: root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            open_file_count: ws.buffers().count(),
            active_file: ws.active().map(|p| p.to_string()),
            api_level: ultra_protocol::API_LEVEL,
            command_count: cx.registry.len(),
            validators: cx.validator_ids(),
            audit_log: cx.audit_path.map(|p| p.display().to_string()),
            version: env!("CARGO_PKG_VERSION").into(),
            text_index: cx.services.text().state(),
        })
    }
}

// ---------------------------------------------------------------- listCommands

/// Arguments of `ultra.listCommands`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListCommandsArgs {
    /// Only this category.
    pub category: Option<String>,
    /// Only commands exposed to agents.
    #[serde(default)]
    pub ai_only: bool,
    /// Fuzzy search over id, title and description, best first.
    pub query: Option<String>,
    /// Leave out schemas and examples (ids, titles and descriptions only).
    #[serde(default)]
    pub brief: bool,
}

/// `ultra.listCommands`.
pub struct ListCommands;

impl Command<Services> for ListCommands {
    type Args = ListCommandsArgs;
    type Output = Vec<serde_json::Value>;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.listCommands",
        "List Commands",
        "Query",
        "Every command with its argument and result schemas, usage line, examples and risk annotations. Filter by category, aiOnly, or a fuzzy query; brief drops schemas and examples.",
    )
    .touches(Touches::NOTHING)
    .read_only()
    .examples(&[Example { description: "Find the save commands", args: r#"{"query": "save", "brief": true}"#, expect: Some(r#"[{"id": "ultra.save"}]"#), ..Example::EMPTY }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: ListCommandsArgs,
    ) -> Result<Vec<serde_json::Value>, CommandError> {
        let list: Vec<&CommandInfo> = match &args.query {
            Some(q) => cx.registry.search(q),
            None => cx.registry.all().collect(),
        };
        Ok(list
            .into_iter()
            .filter(|c| !args.ai_only || c.ai_exposed)
            .filter(|c| args.category.as_ref().is_none_or(|cat| c.category.eq_ignore_ascii_case(cat)))
            .map(|c| {
                if args.brief {
                    serde_json::json!({ "id": c.id, "title": c.title, "category": c.category, "description": c.description, "usage": c.usage, "annotations": c.annotations })
                } else {
                    serde_json::to_value(c).unwrap_or_default()
                }
            })
            .collect())
    }
}
