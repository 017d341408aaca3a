//! Questions to a file's language server at a position (definition, references, hover),
//! for the navigation queries that answer from it when it is ready (`precision:
//! "semantic"`) and from the code index otherwise (`"syntactic"`, with the server's state
//! beside it, so an answer from a server still starting never looks like "nothing found").
//! Positions and ranges are converted between the caller's encoding and the server's here.

use std::collections::HashMap;
use std::time::Duration;

use ropey::Rope;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use ultra_core::Cx;
use ultra_protocol::{CommandError, ErrorCode, Position, PositionEncoding, Range};
use ultra_services::Services;
use ultra_services::util::file_uri;

use super::place::{Location, pos, rope_of};

/// The unit a server counts columns in.
pub use ultra_lsp::PositionEncoding as ServerEncoding;

/// How long a navigation query waits for the language server (its start included)
/// before it answers from the index.
pub const NAV_WAIT: Duration = Duration::from_secs(5);

/// Whether a language server's diagnostics are in the answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerAnswer {
    /// The language whose server it is (`python`, `typescript`, ...).
    pub language: String,
    /// `ready`: it answered (for diagnostics: its diagnostics of the file's current text
    /// are included); `warming`: it is starting or has not answered in time (ask again);
    /// `unavailable`: none runs (`reason` says why and what to do); `refused`: it
    /// answered with an error.
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Who answered a navigation query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// The language server: these are the uses of exactly this symbol.
    Semantic,
    /// The code index, by name: every symbol of that name (shadowing and same-named
    /// symbols elsewhere included).
    Syntactic,
}

/// A server's answer, or why there is none (`None`: no server serves the language).
pub type Answered<T> = Result<T, Option<ServerAnswer>>;

/// A server's answer and its position encoding.
pub type Asked = Answered<(Value, ultra_lsp::PositionEncoding)>;

fn answer(language: &str, state: &str, reason: Option<String>) -> ServerAnswer {
    ServerAnswer {
        language: language.to_string(),
        state: state.into(),
        reason,
    }
}

/// Ask the server of `path` (workspace-relative; its text is `rope`) `method` at `at`
/// (in the caller's encoding), with `extra` parameters.
pub fn ask(
    cx: &Cx<'_, Services>,
    path: &str,
    rope: &Rope,
    at: Position,
    method: &str,
    extra: Value,
) -> Asked {
    let Ok(idx) = ultra_workspace::text::to_char(rope, at, cx.source.encoding()) else {
        let language = ultra_lsp::language_of(path).map_or("", |l| l.0);
        return Err(Some(answer(
            language,
            "unavailable",
            Some("the position is outside the file".into()),
        )));
    };
    let line = rope.char_to_line(idx);
    let byte = rope.char_to_byte(idx) - rope.line_to_byte(line);
    let text = rope.line(line).to_string();
    let uri = document_uri(cx, path);
    request(cx, path, rope, method, &|enc| {
        let mut params = json!({
            "textDocument": { "uri": uri },
            "position": { "line": line, "character": enc.column(&text, byte) },
        });
        if let (Some(p), Value::Object(more)) = (params.as_object_mut(), extra.clone()) {
            p.extend(more);
        }
        params
    })
}

/// The URI a server knows the workspace file `path` by.
pub fn document_uri(cx: &Cx<'_, Services>, path: &str) -> String {
    ultra_lsp::uri::from_path(&cx.services.root_path().join(path))
}

/// The language server of `path`, started if need be, when it works out the edits a
/// file move needs (`workspace/willRenameFiles`): `Ok(None)` when no server serves the
/// file or its server does not handle moves, `Err` (why) when it cannot be started.
pub fn file_mover(
    cx: &Cx<'_, Services>,
    path: &str,
) -> Result<Option<std::sync::Arc<ultra_lsp::Client>>, String> {
    let Some((language, _)) = ultra_lsp::language_of(path) else {
        return Ok(None);
    };
    let client = cx
        .services
        .lsp()
        .client(language)
        .map_err(|e| e.to_string())?;
    let moves = !client.capabilities()["workspace"]["fileOperations"]["willRename"].is_null();
    Ok(moves.then_some(client))
}

/// Ask the server of `path` (its text is `rope`, given to it first) `method`, with the
/// parameters `params` builds for the server's position encoding.
pub fn request(
    cx: &Cx<'_, Services>,
    path: &str,
    rope: &Rope,
    method: &str,
    params: &dyn Fn(ServerEncoding) -> Value,
) -> Asked {
    let Some((language, _)) = ultra_lsp::language_of(path) else {
        return Err(None);
    };
    let abs = cx.services.root_path().join(path);
    // Given the text, and once it has judged it (it published for it; a moment for a
    // server that is ready): a server that just started has not read the workspace before
    // then, and would answer from what it has.
    let client = match cx
        .services
        .lsp()
        .diagnostics(&abs, &rope.to_string(), NAV_WAIT)
    {
        Ok((client, _)) => client,
        Err(e @ ultra_lsp::LspError::Starting { .. }) => {
            return Err(Some(answer(language, "warming", Some(e.to_string()))));
        }
        Err(e) => return Err(Some(answer(language, "unavailable", Some(e.to_string())))),
    };
    let enc = client.encoding();
    // Work it reported under way (loading the workspace) first: an answer before it ends
    // may leave out files it has not read yet.
    let deadline = std::time::Instant::now() + NAV_WAIT;
    if !client.wait_until_quiet(NAV_WAIT) {
        return Err(Some(answer(
            language,
            "warming",
            Some("the language server is still loading the workspace: answered from the index; ask again".into()),
        )));
    }
    let left = deadline.saturating_duration_since(std::time::Instant::now());
    match client.request_within(method, params(enc), left.max(Duration::from_millis(500))) {
        Ok(v) => Ok((v, enc)),
        Err(ultra_lsp::LspError::Refused { message, .. }) => {
            Err(Some(answer(language, "refused", Some(message))))
        }
        Err(e @ ultra_lsp::LspError::Timeout { .. }) => Err(Some(answer(
            language,
            "warming",
            Some(format!("{e}: answered from the index; ask again")),
        ))),
        Err(e) => Err(Some(answer(language, "unavailable", Some(e.to_string())))),
    }
}

/// What the server of `path` publishes for `rope` (its text), waited for `NAV_WAIT` at
/// most: the LSP `Diagnostic` objects (empty when it did not publish in time).
pub fn published(cx: &Cx<'_, Services>, path: &str, rope: &Rope) -> Vec<Value> {
    let abs = cx.services.root_path().join(path);
    cx.services
        .lsp()
        .diagnostics(&abs, &rope.to_string(), NAV_WAIT)
        .ok()
        .and_then(|(_, p)| p)
        .map(|p| p.diagnostics)
        .unwrap_or_default()
}

/// The locations in a server's answer (a `Location`, a list of them, or of
/// `LocationLink`s), in the caller's encoding. A location in a file outside the workspace
/// (a library, a typeshed stub) keeps its absolute path.
pub fn locations(
    cx: &Cx<'_, Services>,
    v: &Value,
    server: ultra_lsp::PositionEncoding,
    limit: usize,
) -> Vec<Location> {
    let items: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        Value::Object(_) => vec![v],
        _ => Vec::new(),
    };
    let root = cx.services.root_path();
    let enc = cx.source.encoding();
    let mut texts: HashMap<String, Option<Rope>> = HashMap::new();
    let mut out = Vec::new();
    for item in items.into_iter().take(limit) {
        let (uri, range) = match item.get("targetUri") {
            Some(u) => (u, &item["targetSelectionRange"]),
            None => (&item["uri"], &item["range"]),
        };
        let Some(abs) = uri.as_str().and_then(ultra_lsp::uri::to_path) else {
            continue;
        };
        let (path, uri) = match abs.strip_prefix(root).ok().and_then(|p| p.to_str()) {
            Some(rel) => (rel.to_string(), file_uri(root, rel)),
            None => (
                abs.to_string_lossy().into_owned(),
                ultra_lsp::uri::from_path(&abs),
            ),
        };
        let rope = texts.entry(path.clone()).or_insert_with(|| {
            if abs.starts_with(root) {
                rope_of(cx, &path)
            } else {
                // Only to convert the columns: nothing of it is returned. A file too big to
                // be source keeps the server's columns.
                std::fs::metadata(&abs)
                    .ok()
                    .filter(|m| m.len() <= MAX_OUTSIDE)
                    .and_then(|_| std::fs::read_to_string(&abs).ok())
                    .map(|t| Rope::from_str(&t))
            }
        });
        out.push(Location {
            uri,
            path,
            range: Range::new(
                convert(rope.as_ref(), &range["start"], server, enc),
                convert(rope.as_ref(), &range["end"], server, enc),
            ),
        });
    }
    out
}

/// A server's position (`{line, character}` in `server`'s encoding) in `enc`.
fn convert(
    rope: Option<&Rope>,
    p: &Value,
    server: ultra_lsp::PositionEncoding,
    enc: PositionEncoding,
) -> Position {
    let line = p["line"].as_u64().unwrap_or(0) as u32;
    let col = u32::try_from(p["character"].as_u64().unwrap_or(0)).unwrap_or(u32::MAX);
    let Some(rope) = rope else {
        return Position::new(line, col);
    };
    let l = (line as usize).min(rope.len_lines().saturating_sub(1));
    let byte = server.byte(&rope.line(l).to_string(), col);
    pos(rope, l as u32 + 1, byte as u32, enc)
}

/// A file outside the workspace a server points to is read (to convert its columns) up to
/// this size.
const MAX_OUTSIDE: u64 = 8 << 20;

/// A hover longer than this is cut (a whole module's docstring is not a hover).
const MAX_HOVER: usize = 8 << 10;

/// A hover's text: `MarkupContent`, a `MarkedString` or a list of them, cut at
/// [`MAX_HOVER`] bytes.
pub fn hover_text(v: &Value) -> Option<String> {
    let part = |c: &Value| -> Option<String> {
        match c {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => match (o.get("language"), o.get("value")) {
                (Some(lang), Some(Value::String(s))) => {
                    Some(format!("```{}\n{s}\n```", lang.as_str().unwrap_or("")))
                }
                (None, Some(Value::String(s))) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        }
    };
    let text = match &v["contents"] {
        Value::Array(a) => a.iter().filter_map(part).collect::<Vec<_>>().join("\n\n"),
        c => part(c)?,
    };
    if text.trim().is_empty() {
        return None;
    }
    if text.len() <= MAX_HOVER {
        return Some(text);
    }
    let mut cut = MAX_HOVER;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Some(format!(
        "{}\n[cut at {} KB of {} KB]",
        &text[..cut],
        MAX_HOVER >> 10,
        text.len() >> 10
    ))
}

/// The protocol's name for a server's position encoding.
pub fn protocol_encoding(e: ultra_lsp::PositionEncoding) -> PositionEncoding {
    match e {
        ultra_lsp::PositionEncoding::Utf8 => PositionEncoding::Utf8,
        ultra_lsp::PositionEncoding::Utf16 => PositionEncoding::Utf16,
        ultra_lsp::PositionEncoding::Utf32 => PositionEncoding::Utf32,
    }
}

/// Whether one language server serves both files.
pub fn same_server(a: &str, b: &str) -> bool {
    let language = |p| ultra_lsp::language_of(p).map(|l| l.0);
    language(a).is_some() && language(a) == language(b)
}

/// One step of a language server's `WorkspaceEdit`, paths workspace-relative. Steps
/// apply in order, each to the files as the steps before it left them.
#[derive(Debug, Clone, PartialEq)]
pub enum EditStep {
    /// Text edits of one file: (range in the server's encoding, new text), all against
    /// the text before them.
    Text {
        path: String,
        edits: Vec<(Range, String)>,
    },
    Create {
        path: String,
        overwrite: bool,
        ignore_if_exists: bool,
    },
    Rename {
        from: String,
        to: String,
        overwrite: bool,
        ignore_if_exists: bool,
    },
    Delete {
        path: String,
        ignore_if_not_exists: bool,
    },
}

impl EditStep {
    /// Whether it creates, renames or deletes a file.
    pub fn is_resource(&self) -> bool {
        !matches!(self, EditStep::Text { .. })
    }
}

/// The steps of a `WorkspaceEdit`: its `documentChanges` in order (text edits and file
/// creations, renames and deletions) or, without them, its `changes`. A step outside
/// `root` is refused: nothing of the edit is applied.
pub fn workspace_edit(root: &std::path::Path, edit: &Value) -> Result<Vec<EditStep>, CommandError> {
    let path = |uri: &Value| -> Result<String, CommandError> {
        let uri = uri.as_str().unwrap_or_default();
        let abs = ultra_lsp::uri::to_path(uri).unwrap_or_default();
        match abs.strip_prefix(root).ok().and_then(|p| p.to_str()) {
            Some(p) if !p.is_empty() => Ok(p.to_string()),
            _ => Err(CommandError::new(
                ErrorCode::PathOutsideWorkspace,
                format!(
                    "the edit would change {}, outside the workspace",
                    abs.display()
                ),
            )
            .with_suggestion("change only what this workspace defines")),
        }
    };
    let text_edits = |edits: &Value| -> Result<Vec<(Range, String)>, CommandError> {
        edits
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                let range: Range = serde_json::from_value(e["range"].clone()).map_err(|err| {
                    CommandError::new(
                        ErrorCode::InternalError,
                        format!("the language server sent a malformed edit: {err}"),
                    )
                })?;
                Ok((range, e["newText"].as_str().unwrap_or_default().to_string()))
            })
            .collect()
    };
    let flag = |change: &Value, name: &str| change["options"][name].as_bool().unwrap_or(false);
    let mut steps = Vec::new();
    // A server that sends both means `documentChanges` (LSP: clients that support them
    // use them and ignore `changes`).
    if let Some(changes) = edit["documentChanges"].as_array() {
        for change in changes {
            steps.push(match change["kind"].as_str() {
                None => EditStep::Text {
                    path: path(&change["textDocument"]["uri"])?,
                    edits: text_edits(&change["edits"])?,
                },
                Some("create") => EditStep::Create {
                    path: path(&change["uri"])?,
                    overwrite: flag(change, "overwrite"),
                    ignore_if_exists: flag(change, "ignoreIfExists"),
                },
                Some("rename") => EditStep::Rename {
                    from: path(&change["oldUri"])?,
                    to: path(&change["newUri"])?,
                    overwrite: flag(change, "overwrite"),
                    ignore_if_exists: flag(change, "ignoreIfExists"),
                },
                Some("delete") => EditStep::Delete {
                    path: path(&change["uri"])?,
                    ignore_if_not_exists: flag(change, "ignoreIfNotExists"),
                },
                Some(other) => {
                    return Err(CommandError::new(
                        ErrorCode::InternalError,
                        format!("the language server sent an unknown file operation `{other}`"),
                    ));
                }
            });
        }
    } else if let Some(changes) = edit["changes"].as_object() {
        for (uri, edits) in changes {
            steps.push(EditStep::Text {
                path: path(&Value::String(uri.clone()))?,
                edits: text_edits(edits)?,
            });
        }
    }
    Ok(steps)
}

/// Who answered a navigation query, flattened into its result.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnsweredBy {
    /// `semantic`: the language server (exactly this symbol); `syntactic`: the code
    /// index, by name (everything of that name).
    pub precision: Precision,
    /// The file's language server, when one serves it: `ready` when it answered, else
    /// `warming`, `unavailable` or `refused` (and why) when the index did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language_server: Option<ServerAnswer>,
}

impl AnsweredBy {
    /// The language server of `path` answered.
    pub fn server(path: &str) -> AnsweredBy {
        AnsweredBy {
            precision: Precision::Semantic,
            language_server: ultra_lsp::language_of(path)
                .map(|(language, _)| answer(language, "ready", None)),
        }
    }

    /// The index answered; `why` the server did not (`None`: none serves the file).
    pub fn index(why: Option<ServerAnswer>) -> AnsweredBy {
        AnsweredBy {
            precision: Precision::Syntactic,
            language_server: why,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hovers_of_every_shape_and_size() {
        let markup = json!({"contents": {"kind": "markdown", "value": "```python\nx: int\n```"}});
        assert_eq!(hover_text(&markup).unwrap(), "```python\nx: int\n```");
        let marked = json!({"contents": [{"language": "c", "value": "int x"}, "doc"]});
        assert_eq!(hover_text(&marked).unwrap(), "```c\nint x\n```\n\ndoc");
        assert_eq!(hover_text(&json!({"contents": ""})), None);
        let big = json!({"contents": "é".repeat(10_000)});
        let text = hover_text(&big).unwrap();
        assert!(text.len() < MAX_HOVER + 40, "{}", text.len());
        assert!(
            text.ends_with("[cut at 8 KB of 19 KB]"),
            "{}",
            &text[text.len() - 40..]
        );
    }

    /// `documentChanges` in order, file operations included; `changes` only without them;
    /// a step outside the root refuses the whole edit.
    #[test]
    fn a_workspace_edits_steps_in_order() {
        let root = std::path::Path::new("/w");
        let range =
            json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}});
        let edit = json!({
            "changes": {"file:///w/ignored.ts": [{"range": range, "newText": "x"}]},
            "documentChanges": [
                {"kind": "create", "uri": "file:///w/new.ts", "options": {"ignoreIfExists": true}},
                {"textDocument": {"uri": "file:///w/new.ts", "version": null}, "edits": [{"range": range, "newText": "y"}]},
                {"kind": "rename", "oldUri": "file:///w/a.ts", "newUri": "file:///w/b/a.ts", "options": {"overwrite": true}},
                {"kind": "delete", "uri": "file:///w/old.ts"},
            ]
        });
        let steps = workspace_edit(root, &edit).unwrap();
        let r: Range = serde_json::from_value(range.clone()).unwrap();
        assert_eq!(
            steps,
            [
                EditStep::Create {
                    path: "new.ts".into(),
                    overwrite: false,
                    ignore_if_exists: true
                },
                EditStep::Text {
                    path: "new.ts".into(),
                    edits: vec![(r, "y".into())]
                },
                EditStep::Rename {
                    from: "a.ts".into(),
                    to: "b/a.ts".into(),
                    overwrite: true,
                    ignore_if_exists: false
                },
                EditStep::Delete {
                    path: "old.ts".into(),
                    ignore_if_not_exists: false
                },
            ]
        );
        let only_changes =
            json!({"changes": {"file:///w/c.ts": [{"range": range, "newText": "z"}]}});
        assert_eq!(
            workspace_edit(root, &only_changes).unwrap(),
            [EditStep::Text {
                path: "c.ts".into(),
                edits: vec![(r, "z".into())]
            }]
        );
        for outside in [
            json!({"documentChanges": [{"kind": "create", "uri": "file:///etc/cron.d/x"}]}),
            json!({"documentChanges": [{"kind": "rename", "oldUri": "file:///w/a.ts", "newUri": "file:///tmp/a.ts"}]}),
            json!({"documentChanges": [{"kind": "delete", "uri": "file:///w"}]}),
        ] {
            let e = workspace_edit(root, &outside).unwrap_err();
            assert_eq!(e.code, ErrorCode::PathOutsideWorkspace, "{outside}");
        }
    }
}
